// Opening a path of a box's workspace the way put, get and exec's cwd must: relative, no
// `..` out of it, no symbolic link anywhere on the way (so a link planted by the box cannot
// point outside), and only regular files or folders.
#pragma once

#include <cstdint>

namespace dopant::sandbox {

// Opens `path` beneath the folder `root` with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS), or, where the kernel has no openat2 (gVisor's, in a runsc box), by
// opening one component at a time with O_NOFOLLOW: an absolute path and every `..` are then
// refused outright, and a component that is a link is refused. `flags` are open(2) flags; O_NONBLOCK is added so a planted FIFO
// cannot stall the caller. Throws sdk::Error: DPT_INVALID_ARGUMENT for an empty path,
// DPT_PERMISSION_DENIED for a path that leaves the workspace or crosses a link,
// DPT_NOT_FOUND when it does not exist, DPT_FAILED_PRECONDITION when it is neither a regular
// file nor a folder of the expected kind. `what` names the field in messages.
int open_in_workspace(int root, const char* path, uint64_t flags, uint32_t mode, bool want_folder, const char* what);

}  // namespace dopant::sandbox
