// Isolation of a box: namespaces and id maps (host side), the box's root file system and
// network (worker side), and the confinement of each command. The seccomp policy itself is
// in syscall_filter.cpp.
#include "isolation.hpp"

#include "syscall_filter.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <grp.h>

namespace dopant::sandbox {

namespace {

[[noreturn]] void fail_errno(const std::string& what) {
  sdk::fail(DPT_PERMISSION_DENIED, what + ": " + std::strerror(errno));
}

bool host_is_root() { return geteuid() == 0; }

// In a box: whether its user namespace maps a uid range (dopant runs as root on the host),
// so commands can run as kBoxUser instead of the box's root.
bool box_user_is_mapped() {
  std::ifstream map("/proc/self/uid_map");
  uint64_t inside = 0, outside = 0, count = 0;
  return static_cast<bool>(map >> inside >> outside >> count) && count > kBoxUser;
}

// What the cloned child does before it becomes the worker: wait until the parent has
// written its id maps, take root of the namespace, move its descriptors into place, exec.
// Async-signal-safe only.
struct CloneStart {
  int sync_read;
  int socket;
  const char* path;
  char* const* argv;
};

int clone_child(void* raw) {
  const CloneStart* start = static_cast<const CloneStart*>(raw);
  char go = 0;
  if (read(start->sync_read, &go, 1) != 1) _exit(127);
  // Become the namespace's root: the maps give uid 0 a host uid of its own; until now this
  // process still had its creator's host uid. Host groups are dropped where allowed. Raw
  // system calls: glibc's wrappers would try to reach the creator's other threads.
  syscall(SYS_setgroups, 0, nullptr);
  if (syscall(SYS_setresgid, 0, 0, 0) != 0 || syscall(SYS_setresuid, 0, 0, 0) != 0) _exit(127);
  const int socket = fcntl(start->socket, F_DUPFD, 10);
  if (socket < 0 || dup2(socket, 3) != 3) _exit(127);
  syscall(SYS_close_range, 4u, ~0u, 0u);
  char* const env[] = {nullptr};
  execve(start->path, start->argv, env);
  _exit(127);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file) sdk::fail(DPT_PERMISSION_DENIED, "cannot write " + path + " for a box's user namespace");
}

void mount_or_fail(const char* source, const std::string& target, const char* type, unsigned long flags,
                   const char* data) {
  if (mount(source, target.c_str(), type, flags, data) != 0) {
    fail_errno(std::string("mount ") + (source != nullptr ? source : "") + " on " + target);
  }
}

// Binds `source` read-only at `target`, keeping the flags the kernel locks on a bind made
// from a more privileged mount namespace.
void bind_read_only(const std::string& source, const std::string& target, bool keep_devices) {
  mount_or_fail(source.c_str(), target, nullptr, MS_BIND | MS_REC, nullptr);
  struct statvfs info {};
  if (statvfs(target.c_str(), &info) != 0) fail_errno("statvfs " + target);
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID;
  if (!keep_devices || (info.f_flag & ST_NODEV) != 0) flags |= MS_NODEV;
  if ((info.f_flag & ST_NOEXEC) != 0) flags |= MS_NOEXEC;
  if ((info.f_flag & ST_NOATIME) != 0) flags |= MS_NOATIME;
  if ((info.f_flag & ST_NODIRATIME) != 0) flags |= MS_NODIRATIME;
  if ((info.f_flag & ST_RELATIME) != 0) flags |= MS_RELATIME;
  if ((info.f_flag & (ST_NOATIME | ST_RELATIME)) == 0) flags |= MS_STRICTATIME;
  mount_or_fail(nullptr, target, nullptr, flags, nullptr);
}

void bring_loopback_up() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail_errno("socket for loopback");
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  const bool up = ioctl(fd, SIOCGIFFLAGS, &request) == 0 &&
                  (request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING),
                   ioctl(fd, SIOCSIFFLAGS, &request) == 0);
  close(fd);
  if (!up) fail_errno("bring up loopback");
}

}  // namespace

bool make_bind_target(const std::string& host_path, const std::string& target) {
  struct stat info {};
  if (lstat(host_path.c_str(), &info) != 0) return false;
  const size_t slash = target.rfind('/');
  std::string parent;
  for (size_t at = 1; at <= slash; ++at) {
    if (at == slash || target[at] == '/') {
      parent = target.substr(0, at);
      mkdir(parent.c_str(), 0755);
    }
  }
  if (S_ISLNK(info.st_mode)) {
    std::string link(static_cast<size_t>(info.st_size) + 1, '\0');
    const ssize_t length = readlink(host_path.c_str(), link.data(), link.size());
    if (length < 0) return false;
    link.resize(static_cast<size_t>(length));
    if (symlink(link.c_str(), target.c_str()) != 0) fail_errno("symlink " + target);
    return false;  // nothing to bind
  }
  if (S_ISDIR(info.st_mode)) {
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) fail_errno("mkdir " + target);
  } else {
    const int fd = open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) fail_errno("create " + target);
    close(fd);
  }
  return true;
}

uid_t box_user_on_host() { return host_is_root() ? kHostUidBase + kBoxUser : geteuid(); }

uint32_t enforced_isolation(Runtime runtime) {
  if (runtime == Runtime::runsc) {
    // gVisor's own kernel gives the box its users, processes, mounts, network, IPC and host
    // name; it has no cgroup namespace. The worker adds the same confinement of commands.
    return DPT_SANDBOX_USER_NS | DPT_SANDBOX_PID_NS | DPT_SANDBOX_MOUNT_NS | DPT_SANDBOX_NET_NS |
           DPT_SANDBOX_IPC_NS | DPT_SANDBOX_UTS_NS | DPT_SANDBOX_SECCOMP | DPT_SANDBOX_NO_NEW_PRIVS |
           DPT_SANDBOX_RLIMITS | DPT_SANDBOX_GVISOR;
  }
  return DPT_SANDBOX_USER_NS | DPT_SANDBOX_PID_NS | DPT_SANDBOX_MOUNT_NS | DPT_SANDBOX_NET_NS | DPT_SANDBOX_IPC_NS |
         DPT_SANDBOX_UTS_NS | DPT_SANDBOX_CGROUP_NS | DPT_SANDBOX_SECCOMP | DPT_SANDBOX_NO_NEW_PRIVS |
         DPT_SANDBOX_RLIMITS;
}

pid_t start_isolated_worker(const std::string& worker_path, const BoxSettings& settings, int socket,
                            const std::string& host_folder) {
  std::vector<std::string> args = settings_to_args(settings);
  args.insert(args.begin(), {worker_path, host_folder});
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int sync[2];
  if (pipe2(sync, O_CLOEXEC) != 0) fail_errno("pipe");
  CloneStart start{sync[0], socket, worker_path.c_str(), argv.data()};
  constexpr size_t kStack = 64 * 1024;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) fail_errno("mmap of a clone stack");
  const int flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
                    CLONE_NEWCGROUP | SIGCHLD;
  const pid_t pid = clone(clone_child, static_cast<char*>(stack) + kStack, flags, &start);
  const int clone_errno = errno;
  munmap(stack, kStack);
  close(sync[0]);
  if (pid < 0) {
    close(sync[1]);
    errno = clone_errno;
    fail_errno("clone into new namespaces");
  }
  try {
    const std::string proc = "/proc/" + std::to_string(pid);
    if (host_is_root()) {
      const std::string range = "0 " + std::to_string(kHostUidBase) + " 65536\n";
      write_file(proc + "/uid_map", range);
      write_file(proc + "/gid_map", range);
    } else {
      write_file(proc + "/uid_map", "0 " + std::to_string(geteuid()) + " 1\n");
      write_file(proc + "/setgroups", "deny");
      write_file(proc + "/gid_map", "0 " + std::to_string(getegid()) + " 1\n");
    }
  } catch (...) {
    close(sync[1]);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    throw;
  }
  const char go = 1;
  const bool started = write(sync[1], &go, 1) == 1;
  close(sync[1]);
  if (!started) fail_errno("start a box worker");
  return pid;
}

void mount_fresh_workspace(const BoxSettings& settings) {
  umount2(kWorkspace, MNT_DETACH);
  const uid_t owner = box_user_is_mapped() ? kBoxUser : 0;
  const std::string options = "size=" + std::to_string(settings.workspace_bytes) + ",mode=0755,uid=" +
                              std::to_string(owner) + ",gid=" + std::to_string(owner);
  mount_or_fail("tmpfs", kWorkspace, "tmpfs", MS_NOSUID | MS_NODEV, options.c_str());
  if (settings.runtime == Runtime::runsc) {
    umount2("/tmp", MNT_DETACH);
    mount_or_fail(kWorkspace, "/tmp", nullptr, MS_BIND, nullptr);
  }
}

void enter_box_root(const BoxSettings& settings, const std::string& host_folder) {
  mount_or_fail(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
  // Held open across the new root's tmpfs, which may hide the folder's path.
  const int host_workspace_fd = host_folder.empty() ? -1 : open(host_folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (!host_folder.empty() && host_workspace_fd < 0) fail_errno("open the workspace folder " + host_folder);
  const std::string root = "/tmp";  // hidden by the new root's tmpfs, in this namespace only
  mount_or_fail("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755");
  for (const std::string& bind : settings.binds) {
    if (make_bind_target(bind, root + bind)) bind_read_only(bind, root + bind, false);
  }
  mkdir((root + "/dev").c_str(), 0755);
  mount_or_fail("tmpfs", root + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755");
  for (const char* device : {"null", "zero", "random", "urandom"}) {
    const std::string host = std::string("/dev/") + device;
    if (make_bind_target(host, root + host)) bind_read_only(host, root + host, true);
  }
  const std::pair<const char*, const char*> links[] = {
      {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}};
  for (const auto& [name, target] : links) symlink(target, (root + "/dev/" + name).c_str());
  mkdir((root + "/proc").c_str(), 0555);
  mount_or_fail("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  mkdir((root + kWorkspace).c_str(), 0755);
  symlink("workspace", (root + "/tmp").c_str());
  if (host_workspace_fd >= 0) {
    mount_or_fail(("/proc/self/fd/" + std::to_string(host_workspace_fd)).c_str(), root + kWorkspace, nullptr,
                  MS_BIND, nullptr);
    mount_or_fail(nullptr, root + kWorkspace, nullptr, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV, nullptr);
    close(host_workspace_fd);
  }
  if (chdir(root.c_str()) != 0) fail_errno("chdir to the new root");
  if (syscall(SYS_pivot_root, ".", ".") != 0) fail_errno("pivot_root");
  if (umount2(".", MNT_DETACH) != 0) fail_errno("detach the host's root");
  if (chdir("/") != 0) fail_errno("chdir /");
  if (host_workspace_fd < 0) mount_fresh_workspace(settings);
  mount_or_fail(nullptr, "/", nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr);
  bring_loopback_up();
  const char hostname[] = "dopant-box";
  sethostname(hostname, sizeof hostname - 1);
}

int confine_command(const BoxSettings& settings) {
  // gVisor lets a user have one process more than RLIMIT_NPROC (it does not count the one
  // that forks), so the box's total stays `processes` as under Linux.
  const uint64_t processes = settings.runtime == Runtime::runsc ? settings.processes - 1 : settings.processes;
  const std::pair<int, uint64_t> limits[] = {
      {RLIMIT_AS, settings.memory_bytes},   {RLIMIT_CPU, settings.cpu_seconds},
      {RLIMIT_FSIZE, settings.file_bytes},  {RLIMIT_NOFILE, settings.open_files},
      {RLIMIT_NPROC, processes},            {RLIMIT_CORE, 0}};
  for (const auto& [resource, value] : limits) {
    const rlimit limit{value, value};
    if (setrlimit(resource, &limit) != 0) return errno;
  }
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  if (box_user_is_mapped()) {
    if (setgroups(0, nullptr) != 0 || setresgid(kBoxUser, kBoxUser, kBoxUser) != 0 ||
        setresuid(kBoxUser, kBoxUser, kBoxUser) != 0) {
      return errno;
    }
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  if (syscall(SYS_capset, &header, none) != 0) return errno;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  return install_syscall_filter();
}

}  // namespace dopant::sandbox
