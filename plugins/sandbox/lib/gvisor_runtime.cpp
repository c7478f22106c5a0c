// Boxes inside gVisor: the pool's folder, each box's OCI bundle, and `runsc run` started and
// ended (see gvisor_runtime.hpp).
#include "gvisor_runtime.hpp"

#include "isolation.hpp"

#include <dopant/support/child_processes.hpp>
#include <dopant/support/json_text.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace dopant::sandbox {

namespace {

// Where the worker is bound inside every box.
constexpr const char* kWorkerInBox = "/.dopant-sandbox-worker";
constexpr int kEndMs = 1000;  // for a sandbox to end by itself once its socket is closed

[[noreturn]] void fail_runtime(dpt_code code, const std::string& what) {
  sdk::fail(code, "parameter `runtime` = \"runsc\": " + what);
}

std::string runsc_on_path() {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const std::string candidate = (folder.empty() ? "." : folder) + "/runsc";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  fail_runtime(DPT_UNAVAILABLE, "gVisor's `runsc` is not on PATH (Debian: the `runsc` package); no box was started");
}

// A JSON array of strings.
std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? "," : "") + json_string(item);
  return out + "]";
}

std::string mount_json(const std::string& destination, const char* type, const std::string& source,
                       const std::vector<std::string>& options) {
  return "{\"destination\":" + json_string(destination) + ",\"type\":" + json_string(type) +
         ",\"source\":" + json_string(source) + ",\"options\":" + json_strings(options) + "}";
}

bool wait_exit(pid_t pid, int wait_ms) {
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    pollfd ended{fd, POLLIN, 0};
    while (poll(&ended, 1, wait_ms) < 0 && errno == EINTR) {
    }
    close(fd);
  }
  return waitpid(pid, nullptr, WNOHANG) == pid;
}

}  // namespace

GvisorRuntime::GvisorRuntime(const BoxSettings& settings, const std::string& worker_path)
    : settings_(settings), worker_path_(worker_path), runsc_(runsc_on_path()) {
  std::string pattern = std::filesystem::temp_directory_path() / "dopant-runsc-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    fail_runtime(DPT_RESOURCE_EXHAUSTED, std::string("cannot make the pool's folder: ") + std::strerror(errno));
  }
  folder_ = pattern;
  try {
    const std::string root = folder_ + "/root";
    for (const std::string& folder : {folder_ + "/state", root, root + kWorkspace, root + "/tmp", root + "/proc"}) {
      if (mkdir(folder.c_str(), 0755) != 0) sdk::fail(DPT_PERMISSION_DENIED, "mkdir " + folder + ": " + std::strerror(errno));
    }
    for (const std::string& bind : settings_.binds) make_bind_target(bind, root + bind);
    make_bind_target(worker_path_, root + kWorkerInBox);
    config_ = bundle_config();
  } catch (const sdk::Error& error) {
    std::filesystem::remove_all(folder_);
    fail_runtime(error.code(), std::string("cannot make the boxes' root: ") + error.what());
  }
}

GvisorRuntime::~GvisorRuntime() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::string GvisorRuntime::bundle_config() const {
  std::vector<std::string> args = settings_to_args(settings_);
  args.insert(args.begin(), {kWorkerInBox, ""});  // no host folder: the workspace is a tmpfs
  // The worker mounts workspaces and runs commands as the box's user; it drops every
  // capability before a command runs (isolation.cpp). These are gVisor's, not the host's.
  const std::string capabilities = json_strings({"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL",
                                                 "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_SYS_ADMIN"});
  std::string mounts =
      mount_json("/proc", "proc", "proc", {"nosuid", "nodev", "noexec"}) + "," +
      mount_json(kWorkspace, "tmpfs", "tmpfs",
                 {"nosuid", "nodev", "mode=0755", "size=" + std::to_string(settings_.workspace_bytes)}) +
      "," + mount_json(kWorkerInBox, "bind", worker_path_, {"bind", "ro", "nosuid", "nodev"});
  for (const std::string& bind : settings_.binds) {
    struct stat info {};
    if (lstat(bind.c_str(), &info) != 0 || S_ISLNK(info.st_mode)) continue;  // missing, or a link in the root
    mounts += "," + mount_json(bind, "bind", bind, {"rbind", "ro", "nosuid", "nodev"});
  }
  return "{\"ociVersion\":\"1.0.0\",\"hostname\":\"dopant-box\","
         "\"root\":{\"path\":" + json_string(folder_ + "/root") + ",\"readonly\":true},"
         "\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"cwd\":\"/\",\"env\":[],\"args\":" + json_strings(args) +
         ",\"capabilities\":{\"bounding\":" + capabilities + ",\"effective\":" + capabilities +
         ",\"permitted\":" + capabilities + "}},"
         "\"mounts\":[" + mounts + "],"
         "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"ipc\"},"
         "{\"type\":\"uts\"},{\"type\":\"mount\"}]}}";
}

pid_t GvisorRuntime::start(int socket, std::string& container) {
  container = "dopant-box-" + std::to_string(next_++);
  const std::string bundle = folder_ + "/" + container;
  if (mkdir(bundle.c_str(), 0700) != 0) fail_runtime(DPT_RESOURCE_EXHAUSTED, "mkdir " + bundle + ": " + std::strerror(errno));
  std::ofstream config(bundle + "/config.json");
  config << config_;
  config.close();
  if (!config) fail_runtime(DPT_RESOURCE_EXHAUSTED, "cannot write " + bundle + "/config.json");
  const int log = open((bundle + ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) fail_runtime(DPT_RESOURCE_EXHAUSTED, "cannot open " + bundle + ".log: " + std::strerror(errno));
  // No network but gVisor's own loopback; no cgroups of runsc's making (gVisor's threads
  // would count against a box's pids limit).
  std::vector<std::string> args = {runsc_, "--root", folder_ + "/state", "--network=none", "--ignore-cgroups",
                                   "run", "--bundle", bundle, container};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, socket, 0);
  posix_spawn_file_actions_adddup2(&actions, socket, 1);
  posix_spawn_file_actions_adddup2(&actions, log, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);  // a terminal's Ctrl-C reaches dopant, not the box
  char* const env[] = {nullptr};
  pid_t pid = -1;
  const int error = posix_spawn(&pid, runsc_.c_str(), &actions, &attributes, argv.data(), env);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(log);
  if (error != 0) fail_runtime(DPT_UNAVAILABLE, "cannot start " + runsc_ + ": " + std::strerror(error));
  return pid;
}

std::string GvisorRuntime::log_of(const std::string& container) const {
  std::ifstream file(folder_ + "/" + container + ".log", std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(file), {});
  constexpr size_t kKept = 2000;
  if (text.size() > kKept) text = "..." + text.substr(text.size() - kKept);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "runsc wrote nothing" : text;
}

void GvisorRuntime::end(pid_t pid, const std::string& container) {
  if (!wait_exit(pid, kEndMs)) {
    kill(pid, SIGKILL);  // `runsc run` takes its sandbox with it
    waitpid(pid, nullptr, 0);
    const std::string log = folder_ + "/" + container + ".log";
    run_child({runsc_, "--root", folder_ + "/state", "delete", "--force", container}, 10, log);
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder_ + "/" + container, ignored);
  std::filesystem::remove(folder_ + "/" + container + ".log", ignored);
}

}  // namespace dopant::sandbox
