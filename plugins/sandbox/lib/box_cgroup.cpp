// Control groups of a box (see box_cgroup.hpp).
#include "box_cgroup.hpp"

#include <dopant/sandbox.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>

namespace dopant::sandbox {

namespace {

// The folder of this process's group in the v1 hierarchy of `controller`, or "".
std::string own_group(const std::string& controller) {
  std::ifstream groups("/proc/self/cgroup");
  std::string line;
  while (std::getline(groups, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::stringstream names(line.substr(first + 1, second - first - 1));
    for (std::string name; std::getline(names, name, ',');) {
      if (name == controller) return "/sys/fs/cgroup/" + controller + line.substr(second + 1);
    }
  }
  return "";
}

bool write_value(const std::string& path, const std::string& value) {
  std::ofstream file(path);
  file << value;
  file.close();
  return static_cast<bool>(file);
}

// A new group under ours for `controller` with `file` set to `value`, or "" when refused.
std::string make_group(const std::string& controller, const std::string& file, uint64_t value) {
  static std::atomic<uint64_t> serial{0};
  const std::string parent = own_group(controller);
  if (parent.empty()) return "";
  const std::string folder = parent + "/dopant-box-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  if (mkdir(folder.c_str(), 0755) != 0) return "";
  if (!write_value(folder + "/" + file, std::to_string(value))) {
    rmdir(folder.c_str());
    return "";
  }
  return folder;
}

// Removes a group once the kernel has let go of its last process.
void remove_group(const std::string& folder) {
  if (folder.empty()) return;
  for (int attempt = 0; attempt < 200 && rmdir(folder.c_str()) != 0 && errno == EBUSY; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

BoxCgroup::BoxCgroup(uint64_t memory_bytes, uint64_t processes)
    : memory_(make_group("memory", "memory.limit_in_bytes", memory_bytes)),
      pids_(make_group("pids", "pids.max", processes + 1)) {}  // + 1: the worker

BoxCgroup::~BoxCgroup() {
  remove_group(memory_);
  remove_group(pids_);
}

bool BoxCgroup::attach(pid_t pid) const {
  bool attached = true;
  for (const std::string* folder : {&memory_, &pids_}) {
    if (!folder->empty()) attached = write_value(*folder + "/cgroup.procs", std::to_string(pid)) && attached;
  }
  return attached;
}

uint64_t BoxCgroup::memory_kills() const {
  if (memory_.empty()) return 0;
  std::ifstream control(memory_ + "/memory.oom_control");
  std::string name;
  uint64_t value = 0;
  while (control >> name >> value) {
    if (name == "oom_kill") return value;
  }
  return 0;
}

uint32_t BoxCgroup::enforced() const {
  return (memory_.empty() ? 0u : uint32_t{DPT_SANDBOX_CGROUP_MEMORY}) | (pids_.empty() ? 0u : uint32_t{DPT_SANDBOX_CGROUP_PIDS});
}

}  // namespace dopant::sandbox
