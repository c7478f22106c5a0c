// How a box's control groups are chosen and set (box_cgroup.hpp), on fake cgroup trees in a
// temporary folder: cgroup v2 where dopant's group hands memory and pids to its children
// (memory.max, pids.max, memory.events), else v1 (memory.limit_in_bytes, pids.max,
// memory.oom_control), else none. The real kernel's side (the limits holding) is the
// security suite's memory and fork-bomb cases on the machine's own hierarchy.
#include "box_cgroup.hpp"

#include <dopant/sandbox.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using namespace dopant::sandbox;

namespace {

constexpr uint64_t kMemory = 256 << 20;
constexpr uint64_t kProcesses = 64;

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A fake cgroup tree: `root` as /sys/fs/cgroup, and a membership file as /proc/self/cgroup.
class FakeCgroups : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/dopant-fake-cgroup-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    top_ = folder;
    paths_.root = (top_ / "cgroup").string();
    paths_.membership = (top_ / "membership").string();
  }
  void TearDown() override { fs::remove_all(top_); }
  fs::path root() const { return paths_.root; }
  // The one box group made under `parent`.
  static fs::path box_group(const fs::path& parent) {
    for (const auto& entry : fs::directory_iterator(parent)) {
      if (entry.is_directory() && entry.path().filename().string().rfind("dopant-box-", 0) == 0) return entry.path();
    }
    return {};
  }
  // v1 memory and pids hierarchies with this process in /job.
  void add_v1() {
    fs::create_directories(root() / "memory/job");
    fs::create_directories(root() / "pids/job");
  }

  fs::path top_;
  CgroupPaths paths_;
};

TEST_F(FakeCgroups, PrefersV2WhereTheGroupDelegatesMemoryAndPids) {
  add_v1();  // both there: v2 wins
  write_text(root() / "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  write_text(root() / "job/cgroup.controllers", "cpu memory pids\n");
  write_text(root() / "job/cgroup.subtree_control", "memory pids\n");
  write_text(paths_.membership, "4:memory:/job\n3:pids:/job\n0::/job\n");
  const BoxCgroup cgroup(kMemory, kProcesses, paths_);
  EXPECT_EQ(cgroup.hierarchy(), CgroupHierarchy::v2);
  EXPECT_EQ(cgroup.enforced(), uint32_t{DPT_SANDBOX_CGROUP_MEMORY | DPT_SANDBOX_CGROUP_PIDS});
  const fs::path group = box_group(root() / "job");
  ASSERT_FALSE(group.empty());
  EXPECT_EQ(read_text(group / "memory.max"), std::to_string(kMemory));
  EXPECT_EQ(read_text(group / "pids.max"), std::to_string(kProcesses + 1));  // and the worker
  EXPECT_TRUE(box_group(root() / "memory/job").empty()) << "a v1 group was made too";
  ASSERT_TRUE(cgroup.attach(4242));
  EXPECT_EQ(read_text(group / "cgroup.procs"), "4242");
  EXPECT_EQ(cgroup.memory_kills(), 0u);
  write_text(group / "memory.events", "low 0\nhigh 0\nmax 7\noom 3\noom_kill 2\n");
  EXPECT_EQ(cgroup.memory_kills(), 2u);
}

TEST_F(FakeCgroups, UsesV1OnAHybridMachineWhoseUnifiedHierarchyLacksTheControllers) {
  add_v1();  // this project's machines: the unified hierarchy has hugetlb alone
  write_text(root() / "unified/cgroup.controllers", "hugetlb\n");
  write_text(root() / "unified/cgroup.subtree_control", "");
  write_text(paths_.membership, "9:name=systemd:/\n8:pids:/job\n4:memory:/job\n1:cpu,cpuacct:/\n0::/\n");
  const BoxCgroup cgroup(kMemory, kProcesses, paths_);
  EXPECT_EQ(cgroup.hierarchy(), CgroupHierarchy::v1);
  EXPECT_EQ(cgroup.enforced(), uint32_t{DPT_SANDBOX_CGROUP_MEMORY | DPT_SANDBOX_CGROUP_PIDS});
  const fs::path memory = box_group(root() / "memory/job"), pids = box_group(root() / "pids/job");
  ASSERT_FALSE(memory.empty());
  ASSERT_FALSE(pids.empty());
  EXPECT_EQ(read_text(memory / "memory.limit_in_bytes"), std::to_string(kMemory));
  EXPECT_EQ(read_text(pids / "pids.max"), std::to_string(kProcesses + 1));
  EXPECT_TRUE(box_group(root() / "unified").empty()) << "a v2 group was made without the controllers";
  ASSERT_TRUE(cgroup.attach(77));
  EXPECT_EQ(read_text(memory / "cgroup.procs"), "77");
  EXPECT_EQ(read_text(pids / "cgroup.procs"), "77");
  write_text(memory / "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n");
  EXPECT_EQ(cgroup.memory_kills(), 5u);
}

TEST_F(FakeCgroups, NoneWhereNeitherHierarchyOffersTheControllers) {
  // v2 only; the controllers exist but dopant's group cannot hand them on (the fake file takes
  // the "+memory +pids" write without enabling anything, as a group holding processes would refuse it).
  write_text(root() / "cgroup.controllers", "memory pids\n");
  write_text(root() / "job/cgroup.controllers", "memory pids\n");
  write_text(root() / "job/cgroup.subtree_control", "");
  write_text(paths_.membership, "0::/job\n");
  const BoxCgroup cgroup(kMemory, kProcesses, paths_);
  EXPECT_EQ(cgroup.hierarchy(), CgroupHierarchy::none);
  EXPECT_EQ(cgroup.enforced(), 0u);
  EXPECT_EQ(read_text(root() / "job/cgroup.subtree_control"), "+memory +pids") << "enabling was not tried";
  EXPECT_TRUE(box_group(root() / "job").empty());
  EXPECT_TRUE(cgroup.attach(1));  // nothing to join
  EXPECT_EQ(cgroup.memory_kills(), 0u);
}

}  // namespace
