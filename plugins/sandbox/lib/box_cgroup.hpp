// A box's control groups, where the machine lets dopant make them: a memory limit on the box
// as a whole (its processes and its tmpfs workspace) with a count of the processes the kernel
// killed for it, and a limit on how many processes the box has at once. Chosen at run time:
// cgroup v2 (one group with memory.max and pids.max) where dopant's own group in the unified
// hierarchy hands the memory and pids controllers to its children; else the cgroup v1
// memory and pids hierarchies, each where it is writable; else none: a box still has its
// rlimits, and stats say which limits are enforced.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace dopant::sandbox {

// Where the cgroup filesystems are and which groups this process is in; tests pass a fake tree.
struct CgroupPaths {
  std::string root = "/sys/fs/cgroup";  // v1 hierarchies at root/<controller>; the unified one
                                        // at root (v2 only) or root/unified (hybrid)
  std::string membership = "/proc/self/cgroup";
};

enum class CgroupHierarchy { none, v1, v2 };

class BoxCgroup {
 public:
  // Makes the groups under dopant's own; those the machine refuses are left out.
  BoxCgroup(uint64_t memory_bytes, uint64_t processes, const CgroupPaths& paths = {});
  ~BoxCgroup();
  BoxCgroup(const BoxCgroup&) = delete;
  BoxCgroup& operator=(const BoxCgroup&) = delete;

  // Moves `pid` (a box's worker, before it starts commands) into the groups; false when
  // the kernel refuses.
  bool attach(pid_t pid) const;
  // Processes killed so far for passing the memory limit.
  uint64_t memory_kills() const;
  // DPT_SANDBOX_CGROUP_MEMORY and DPT_SANDBOX_CGROUP_PIDS for the limits that are set.
  uint32_t enforced() const;
  CgroupHierarchy hierarchy() const { return hierarchy_; }

 private:
  CgroupHierarchy hierarchy_ = CgroupHierarchy::none;
  std::string memory_;  // the group holding the memory limit, empty when none
  std::string pids_;    // the group holding the process limit (v2: the same group)
};

}  // namespace dopant::sandbox
