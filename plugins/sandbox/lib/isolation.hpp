// The isolation of a box, in one place for both plugins (and both runtimes of `pbox`). The host side starts a worker as
// pid 1 of new user, pid, mount, net, ipc, uts and cgroup namespaces; the worker side builds
// the box's root (read-only binds, a size-capped workspace, /dev and /proc of its own,
// loopback up) and pivots into it; each command is confined before it runs (rlimits, no
// capabilities, an unprivileged user, no_new_privs, the seccomp filter).
#pragma once

#include "box_settings.hpp"

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace dopant::sandbox {

// Inside a box: where the workspace is, and the user commands run as.
inline constexpr const char* kWorkspace = "/workspace";
inline constexpr uid_t kBoxUser = 1000;

// The host uid the box's user maps to: root of a box is kHostUidBase on the host when dopant
// runs as root (a 65536-uid range is mapped), else dopant's own uid (one uid is mapped).
inline constexpr uid_t kHostUidBase = 2100000000;
uid_t box_user_on_host();

// DPT_SANDBOX_* bits that every box of this machine gets in `runtime` (namespaces, seccomp,
// rlimits...; under runsc the namespaces are gVisor's own, and GVISOR is set).
uint32_t enforced_isolation(Runtime runtime);

// Host side: starts `worker_path` as pid 1 of fresh namespaces with `socket` as its fd 3.
// `host_folder` (first argument of the worker) is a host folder to bind as the workspace,
// or empty for a tmpfs. Throws sdk::Error when the kernel refuses.
pid_t start_isolated_worker(const std::string& worker_path, const BoxSettings& settings, int socket,
                            const std::string& host_folder);

// Makes the mount point of the host path `host_path` at `target` in a new root, as the host
// has it: the same symbolic link, or an empty folder or file to bind onto (parent folders
// made as needed). Returns false when there is nothing to bind (a link, or no such path).
bool make_bind_target(const std::string& host_path, const std::string& target);

// Worker side, once: builds the box's root and pivots into it. Throws sdk::Error.
void enter_box_root(const BoxSettings& settings, const std::string& host_folder);

// Worker side: replaces the workspace by an empty tmpfs of the configured size. Under gVisor
// (runtime runsc), whose root, /dev, /proc and network come from the pool's OCI bundle
// (gvisor_runtime.hpp), this is all the worker builds: it also binds the workspace at /tmp,
// where the native root has a link to it.
void mount_fresh_workspace(const BoxSettings& settings);

// In a command's process, after fork and before exec: limits, user, capabilities,
// no_new_privs and the seccomp filter. Returns errno on failure (the caller reports it).
int confine_command(const BoxSettings& settings);

}  // namespace dopant::sandbox
