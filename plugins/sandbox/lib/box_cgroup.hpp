// A box's control groups, where the machine lets dopant make them: a memory group capping
// the box as a whole (its processes and its tmpfs workspace) and counting the processes the
// kernel killed for it, and a pids group capping how many processes the box has at once.
// cgroup v1 controllers are used (the hierarchy this machine kind mounts writable); without
// them a box still has its rlimits, and stats say which limits are enforced.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace dopant::sandbox {

class BoxCgroup {
 public:
  // Makes the groups under dopant's own; those the machine refuses are left out.
  BoxCgroup(uint64_t memory_bytes, uint64_t processes);
  ~BoxCgroup();
  BoxCgroup(const BoxCgroup&) = delete;
  BoxCgroup& operator=(const BoxCgroup&) = delete;

  // Moves `pid` (a box's worker, before it starts commands) into the groups; false when
  // the kernel refuses.
  bool attach(pid_t pid) const;
  // Processes killed so far for passing the memory limit.
  uint64_t memory_kills() const;
  // DPT_SANDBOX_CGROUP_MEMORY and DPT_SANDBOX_CGROUP_PIDS for the groups that exist.
  uint32_t enforced() const;

 private:
  std::string memory_;  // the group's folder, empty when none
  std::string pids_;
};

}  // namespace dopant::sandbox
