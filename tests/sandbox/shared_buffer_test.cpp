// A warm box's shared buffer (plugins/sandbox/lib/shared_buffer.hpp): the pool adopts only
// memfds sealed against shrinking and of a bounded size; a box grows it from either side
// (a large put from the pool's, a large get from the worker's) and both sides drop a grown
// one at reset without losing step; bytes come back unchanged through every size.
#include "shared_buffer.hpp"
#include "test_pool.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace {

using dopant::sandbox::SharedBuffer;

int memfd_of_size(uint64_t bytes, unsigned int seals) {
  const int fd = memfd_create("test-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
  if (seals != 0) {
    EXPECT_EQ(fcntl(fd, F_ADD_SEALS, seals), 0);
  }
  return fd;
}

TEST(SandboxSharedBuffer, OnlySealedBuffersOfABoundedSizeAreAdopted) {
  const char* why = nullptr;
  EXPECT_TRUE(SharedBuffer::adopt(memfd_of_size(1 << 20, 0), 4 << 20, &why).empty());
  EXPECT_NE(std::string(why).find("sealed"), std::string::npos) << why;
  why = nullptr;
  EXPECT_TRUE(SharedBuffer::adopt(memfd_of_size(8 << 20, F_SEAL_SHRINK), 4 << 20, &why).empty());
  EXPECT_NE(std::string(why).find("size"), std::string::npos) << why;
  const SharedBuffer adopted = SharedBuffer::adopt(memfd_of_size(1 << 20, F_SEAL_SHRINK), 4 << 20, &why);
  ASSERT_FALSE(adopted.empty());
  EXPECT_EQ(adopted.capacity(), uint64_t{1} << 20);
  adopted.data()[(1 << 20) - 1] = 7;  // mapped whole, writable
}

TEST(SandboxSharedBuffer, CreatedBuffersAreSealedPowersOfTwo) {
  const SharedBuffer buffer = SharedBuffer::create(3 << 20);
  EXPECT_EQ(buffer.capacity(), uint64_t{4} << 20);
  EXPECT_EQ(ftruncate(buffer.fd(), 1), -1);  // F_SEAL_SHRINK holds
}

std::string pattern(size_t bytes, int seed) {
  std::string data(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>(i * 131 + static_cast<size_t>(seed));
  return data;
}

// Equal bytes; on a difference says where, not the whole megabytes.
::testing::AssertionResult same_bytes(const std::string& got, const std::string& expected) {
  if (got == expected) return ::testing::AssertionSuccess();
  size_t at = 0;
  while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
  return ::testing::AssertionFailure() << "got " << got.size() << " bytes, expected " << expected.size()
                                       << ", first difference at byte " << at;
}

class Box {
 public:
  explicit Box(const TestPool& pool) : pool_(pool) {
    dpt_sandbox_acquire_args acquired{DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, nullptr, nullptr};
    EXPECT_EQ("", take(pool.table().acquire(pool.handle(), &acquired)));
    box_ = acquired.box;
  }
  ~Box() {
    const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    EXPECT_EQ("", take(pool_.table().release(pool_.handle(), &release)));
  }
  void put(const char* path, const std::string& data) {
    const dpt_sandbox_put_args put{DPT_SANDBOX_PUT_ARGS_SIZE_1_4, nullptr, box_, path, data.data(), data.size(), 0};
    ASSERT_EQ("", take(pool_.table().put(pool_.handle(), &put)));
  }
  std::string get(const char* path) {
    dpt_sandbox_get_args get{DPT_SANDBOX_GET_ARGS_SIZE_1_4, nullptr, box_, path, nullptr, 0};
    EXPECT_EQ("", take(pool_.table().get(pool_.handle(), &get)));
    return get.data == nullptr ? std::string() : std::string(static_cast<const char*>(get.data), get.bytes);
  }
  std::string run(const char* script) {
    const char* argv[] = {"/bin/sh", "-c", script, nullptr};
    dpt_sandbox_exec_args exec{};
    exec.struct_size = DPT_SANDBOX_EXEC_ARGS_SIZE_1_4;
    exec.box = box_;
    exec.argv = argv;
    exec.timeout_ms = 60000;
    EXPECT_EQ("", take(pool_.table().exec(pool_.handle(), &exec)));
    EXPECT_EQ(exec.exit_code, 0);
    return std::string(static_cast<const char*>(exec.stdout_data), exec.stdout_bytes);
  }
  void reset() {
    const dpt_sandbox_box_args args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    ASSERT_EQ("", take(pool_.table().reset(pool_.handle(), &args)));
  }

 private:
  const TestPool& pool_;
  dpt_sandbox_box* box_ = nullptr;
};

TEST(SandboxSharedBuffer, PboxGrowsItFromEitherSideAndDropsItAtReset) {
  TestPool pool("pbox", "warm = 1\nworkspace_size = \"32MiB\"");
  ASSERT_EQ("", pool.error());
  Box box(pool);
  const std::string small = pattern(4096, 1);
  box.put("small", small);
  EXPECT_TRUE(same_bytes(box.get("small"), small));
  // The worker makes a file larger than any buffer so far: the get grows it from its side.
  EXPECT_EQ(box.run("head -c 6000000 /dev/zero | tr '\\0' x > made; wc -c < made"), "6000000\n");
  EXPECT_TRUE(same_bytes(box.get("made"), std::string(6000000, 'x')));
  box.reset();  // both sides drop the 8 MiB buffer
  const std::string large = pattern(10 << 20, 2);  // grown from the pool's side
  box.put("large", large);
  EXPECT_TRUE(same_bytes(box.get("large"), large));
  EXPECT_EQ(box.run("wc -c < large"), std::to_string(large.size()) + "\n");
  box.reset();
  box.put("small", small);  // a fresh buffer after the drop, on both sides
  EXPECT_TRUE(same_bytes(box.get("small"), small));
  const std::string shorter = pattern(1000, 3);  // replacing a file cuts it to the new length
  box.put("small", shorter);
  EXPECT_TRUE(same_bytes(box.get("small"), shorter));
  dpt_sandbox_stats stats{};
  stats.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  ASSERT_EQ("", take(pool.table().stats(pool.handle(), &stats)));
  EXPECT_EQ(stats.boxes_replaced, 0u);  // no step was lost: the worker was never replaced
}

}  // namespace
