// Resolution of workspace paths with openat2, or component by component where it is missing
// (see workspace_paths.hpp).
#include "workspace_paths.hpp"

#include <dopant/sdk/errors.hpp>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace dopant::sandbox {

namespace {

// openat2's resolution by hand, for kernels without it: each folder on the way is opened
// with O_PATH | O_NOFOLLOW and checked to be a folder (a link opened so is refused, so one
// planted or swapped in meanwhile is never followed); the last component is opened with
// O_NOFOLLOW (a link there fails with ELOOP). Errors as openat2's: -1 with errno set.
int open_component_by_component(int root, const char* path, const open_how& how) {
  if (path[0] == '/') {
    errno = EXDEV;
    return -1;
  }
  std::vector<std::string> names;
  for (const char* at = path; *at != '\0';) {
    const char* end = std::strchr(at, '/');
    const std::string name(at, end != nullptr ? static_cast<size_t>(end - at) : std::strlen(at));
    if (name == "..") {
      errno = EXDEV;
      return -1;
    }
    if (!name.empty() && name != ".") names.push_back(name);
    at += name.size() + (end != nullptr ? 1 : 0);
  }
  if (names.empty()) names.push_back(".");
  if (names.size() == 1) return openat(root, names[0].c_str(), static_cast<int>(how.flags) | O_NOFOLLOW, static_cast<mode_t>(how.mode));
  int folder = fcntl(root, F_DUPFD_CLOEXEC, 0);
  for (size_t i = 0; folder >= 0 && i + 1 < names.size(); ++i) {
    const int next = openat(folder, names[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    close(folder);
    folder = next;
    struct stat info {};
    if (folder < 0) {
      errno = error;
    } else if (fstat(folder, &info) != 0 || !S_ISDIR(info.st_mode)) {
      errno = S_ISLNK(info.st_mode) ? ELOOP : ENOTDIR;
      close(folder);
      folder = -1;
    }
  }
  if (folder < 0) return -1;
  const int fd = openat(folder, names.back().c_str(), static_cast<int>(how.flags) | O_NOFOLLOW,
                        static_cast<mode_t>(how.mode));
  const int error = errno;
  close(folder);
  errno = error;
  return fd;
}

}  // namespace

int open_in_workspace(int root, const char* path, uint64_t flags, uint32_t mode, bool want_folder, const char* what) {
  const std::string named = std::string(what) + " `" + path + "`";
  if (path[0] == '\0') sdk::fail(DPT_INVALID_ARGUMENT, std::string(what) + " is empty");
  open_how how{};
  how.flags = flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  static bool kernel_has_openat2 = true;  // asked once: in gVisor each refused call is a trap
  int fd = -1;
  if (kernel_has_openat2) {
    do {
      fd = static_cast<int>(syscall(SYS_openat2, root, path, &how, sizeof how));
    } while (fd < 0 && errno == EAGAIN);
    kernel_has_openat2 = fd >= 0 || errno != ENOSYS;
  }
  if (!kernel_has_openat2) fd = open_component_by_component(root, path, how);
  if (fd < 0) {
    const int error = errno;
    if (error == EXDEV || error == ELOOP) sdk::fail(DPT_PERMISSION_DENIED, named + " leaves the workspace or crosses a symbolic link");
    if (error == ENOENT) sdk::fail(DPT_NOT_FOUND, named + " does not exist");
    if (error == ENOSPC || error == EDQUOT) sdk::fail(DPT_RESOURCE_EXHAUSTED, named + ": the workspace is full");
    if (error == ENXIO || error == EISDIR || error == ENOTDIR) sdk::fail(DPT_FAILED_PRECONDITION, named + ": " + std::strerror(error));
    sdk::fail(DPT_PERMISSION_DENIED, named + ": " + std::strerror(error));
  }
  struct stat info {};
  const bool right_kind = fstat(fd, &info) == 0 && (want_folder ? S_ISDIR(info.st_mode) : S_ISREG(info.st_mode));
  if (!right_kind) {
    close(fd);
    sdk::fail(DPT_FAILED_PRECONDITION, named + (want_folder ? " is not a folder" : " is not a regular file"));
  }
  return fd;
}

}  // namespace dopant::sandbox
