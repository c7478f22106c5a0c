// The seccomp deny list of a box's commands (see syscall_filter.hpp).
#include "syscall_filter.hpp"

#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>

#include <cerrno>

namespace dopant::sandbox {

int install_syscall_filter() {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) return ENOMEM;
  const int denied[] = {
      SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(fsopen),
      SCMP_SYS(fsconfig), SCMP_SYS(fsmount), SCMP_SYS(fspick), SCMP_SYS(move_mount), SCMP_SYS(open_tree),
      SCMP_SYS(mount_setattr), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
      SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(bpf), SCMP_SYS(init_module),
      SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(add_key), SCMP_SYS(request_key),
      SCMP_SYS(keyctl), SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(perf_event_open),
      SCMP_SYS(userfaultfd), SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(acct),
      SCMP_SYS(quotactl), SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at), SCMP_SYS(iopl),
      SCMP_SYS(ioperm), SCMP_SYS(syslog), SCMP_SYS(lookup_dcookie),
  };
  int result = 0;
  for (const int call : denied) {
    if (result == 0) result = -seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 0);
  }
  const unsigned long namespaces[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,   CLONE_NEWNET,
                                      CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME};
  for (const unsigned long flag : namespaces) {
    if (result == 0) {
      result = -seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                 SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    }
  }
  if (result == 0) result = -seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  if (result == 0) {
    result = -seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                               SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
  }
  if (result == 0) result = -seccomp_load(filter);
  seccomp_release(filter);
  return result;
}

}  // namespace dopant::sandbox
