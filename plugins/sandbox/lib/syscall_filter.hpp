// The seccomp policy of a box's commands, built with libseccomp.
#pragma once

namespace dopant::sandbox {

// Loads the filter into the calling process (no_new_privs must be set). Denied calls fail
// with EPERM: mounts and the new mount API, ptrace and process_vm_*, kexec, bpf, module
// loading, the keyring, unshare/setns and namespace flags of clone, perf_event_open,
// userfaultfd, reboot, swap, accounting, quotas, handle-based opens, terminal injection.
// clone3 fails with ENOSYS (its flags cannot be inspected), so libc falls back to clone.
// Other architectures' system calls kill the process. Returns 0 or an errno value.
int install_syscall_filter();

}  // namespace dopant::sandbox
