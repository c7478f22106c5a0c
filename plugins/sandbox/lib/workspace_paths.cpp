// Resolution of workspace paths with openat2 (see workspace_paths.hpp).
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

namespace dopant::sandbox {

int open_in_workspace(int root, const char* path, uint64_t flags, uint32_t mode, bool want_folder, const char* what) {
  const std::string named = std::string(what) + " `" + path + "`";
  if (path[0] == '\0') sdk::fail(DPT_INVALID_ARGUMENT, std::string(what) + " is empty");
  open_how how{};
  how.flags = flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd = -1;
  do {
    fd = static_cast<int>(syscall(SYS_openat2, root, path, &how, sizeof how));
  } while (fd < 0 && errno == EAGAIN);
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
