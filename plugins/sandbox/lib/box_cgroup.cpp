// Control groups of a box (see box_cgroup.hpp).
#include "box_cgroup.hpp"

#include <dopant/sandbox.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

namespace dopant::sandbox {

namespace {

// The path of this process's group in the hierarchy with `controller` (v1), or in the
// unified one for "" (the "0::" line), from /proc/self/cgroup's "id:controllers:path" lines;
// "" when it is in none.
std::string own_group(const CgroupPaths& paths, const std::string& controller) {
  std::ifstream groups(paths.membership);
  std::string line;
  while (std::getline(groups, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string group = line.substr(second + 1);
    if (controller.empty()) {
      if (line.compare(0, first, "0") == 0 && controllers.empty()) return group;
      continue;
    }
    std::stringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (name == controller) return group;
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

// The whitespace-separated words of `path` (cgroup.controllers, cgroup.subtree_control).
std::set<std::string> words_of(const std::string& path) {
  std::ifstream file(path);
  std::set<std::string> words;
  for (std::string word; file >> word;) words.insert(word);
  return words;
}

bool has_memory_and_pids(const std::string& path) {
  const std::set<std::string> words = words_of(path);
  return words.count("memory") != 0 && words.count("pids") != 0;
}

// A new empty group under `parent`, or "" when refused.
std::string make_folder(const std::string& parent) {
  static std::atomic<uint64_t> serial{0};
  const std::string folder = parent + "/dopant-box-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  return mkdir(folder.c_str(), 0755) == 0 ? folder : "";
}

// A new group whose `files` are set to their values, or "" when refused.
std::string make_group(const std::string& parent, std::initializer_list<std::pair<const char*, uint64_t>> files) {
  const std::string folder = make_folder(parent);
  if (folder.empty()) return "";
  for (const auto& [file, value] : files) {
    if (!write_value(folder + "/" + file, std::to_string(value))) {
      rmdir(folder.c_str());
      return "";
    }
  }
  return folder;
}

// The folder of the unified hierarchy: `root` on a v2-only machine, root/unified on a hybrid
// one, "" without one.
std::string unified_mount(const std::string& root) {
  for (const std::string& candidate : {root, root + "/unified"}) {
    if (access((candidate + "/cgroup.controllers").c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

// A v2 group under ours with memory.max and pids.max, or "" when our group does not hand
// both controllers to its children and cannot be made to (the kernel refuses enabling them
// in a group that holds processes, unless it is the hierarchy's root).
std::string make_v2_group(const CgroupPaths& paths, uint64_t memory_bytes, uint64_t pids) {
  const std::string mount = unified_mount(paths.root);
  const std::string group = own_group(paths, "");
  if (mount.empty() || group.empty()) return "";
  const std::string parent = mount + (group == "/" ? "" : group);
  const std::string delegated = parent + "/cgroup.subtree_control";
  if (!has_memory_and_pids(delegated)) {
    if (!has_memory_and_pids(parent + "/cgroup.controllers")) return "";
    write_value(delegated, "+memory +pids");
    if (!has_memory_and_pids(delegated)) return "";
  }
  return make_group(parent, {{"memory.max", memory_bytes}, {"pids.max", pids}});
}

// A v1 group under ours in the hierarchy of `controller`, with `file` set to `value`.
std::string make_v1_group(const CgroupPaths& paths, const std::string& controller, const char* file, uint64_t value) {
  const std::string group = own_group(paths, controller);
  if (group.empty()) return "";
  return make_group(paths.root + "/" + controller + (group == "/" ? "" : group), {{file, value}});
}

// Removes a group once the kernel has let go of its last process.
void remove_group(const std::string& folder) {
  if (folder.empty()) return;
  for (int attempt = 0; attempt < 200 && rmdir(folder.c_str()) != 0 && errno == EBUSY; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

BoxCgroup::BoxCgroup(uint64_t memory_bytes, uint64_t processes, const CgroupPaths& paths) {
  const uint64_t pids = processes + 1;  // + 1: the worker
  memory_ = pids_ = make_v2_group(paths, memory_bytes, pids);
  if (!memory_.empty()) {
    hierarchy_ = CgroupHierarchy::v2;
    return;
  }
  memory_ = make_v1_group(paths, "memory", "memory.limit_in_bytes", memory_bytes);
  pids_ = make_v1_group(paths, "pids", "pids.max", pids);
  if (!memory_.empty() || !pids_.empty()) hierarchy_ = CgroupHierarchy::v1;
}

BoxCgroup::~BoxCgroup() {
  remove_group(memory_);
  if (pids_ != memory_) remove_group(pids_);
}

bool BoxCgroup::attach(pid_t pid) const {
  bool attached = true;
  for (const std::string* folder : {&memory_, &pids_}) {
    if (folder->empty() || (folder == &pids_ && pids_ == memory_)) continue;
    attached = write_value(*folder + "/cgroup.procs", std::to_string(pid)) && attached;
  }
  return attached;
}

uint64_t BoxCgroup::memory_kills() const {
  if (memory_.empty()) return 0;
  // Both files are "name value" lines; the count is "oom_kill" in each.
  std::ifstream control(memory_ + (hierarchy_ == CgroupHierarchy::v2 ? "/memory.events" : "/memory.oom_control"));
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
