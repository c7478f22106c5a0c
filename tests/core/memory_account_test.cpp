// Memory accounting: current and peak bytes, exact under many threads, and a capacity limit
// that turns an over-allocation into an out-of-memory error naming requested and available
// bytes.
#include "error.hpp"
#include "host/host_services.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace dopant {
namespace {

TEST(MemoryAccount, PeakFollowsHighWaterMark) {
  HostServices services(1, DPT_LOG_ERROR);
  void* a = services.allocate(DPT_MEMORY_DEVICE, 1000, 0);
  void* b = services.allocate(DPT_MEMORY_DEVICE, 3000, 0);
  services.release(DPT_MEMORY_DEVICE, a);
  void* c = services.allocate(DPT_MEMORY_DEVICE, 500, 0);
  const dpt_memory_stats stats = services.account(DPT_MEMORY_DEVICE).stats();
  EXPECT_EQ(stats.current_bytes, 3500u);
  EXPECT_EQ(stats.peak_bytes, 4000u);
  EXPECT_EQ(stats.peak_demand_bytes, 4000u) << "nothing was refused";
  EXPECT_EQ(stats.allocation_count, 2u);
  services.release(DPT_MEMORY_DEVICE, b);
  services.release(DPT_MEMORY_DEVICE, c);
  EXPECT_EQ(services.account(DPT_MEMORY_DEVICE).stats().current_bytes, 0u);
  EXPECT_EQ(services.account(DPT_MEMORY_DEVICE).stats().peak_bytes, 4000u);
}

// Eight threads allocate and release at once, as plugins do from parallel_for: every byte
// is accounted. Without the account's lock (the mutant, tried) the counters lose updates
// and `current_bytes` ends wrong (or the size map corrupts).
TEST(MemoryAccount, ManyThreadsAtOnceLoseNoBytes) {
  HostServices services(1, DPT_LOG_ERROR);
  constexpr int kThreads = 8, kRounds = 50000, kKept = 16;
  std::vector<std::vector<void*>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const uint64_t bytes = 64 * static_cast<uint64_t>(t + 1);
      MemoryAccount& account = services.account(DPT_MEMORY_HOST);
      for (int round = 0; round < kRounds; ++round) {
        services.release(DPT_MEMORY_HOST, services.allocate(DPT_MEMORY_HOST, bytes, 0));
        account.reserve(bytes);  // the counters alone, at the highest contention
        account.unreserve(bytes);
      }
      for (int i = 0; i < kKept; ++i) kept[t].push_back(services.allocate(DPT_MEMORY_HOST, bytes, 0));
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Kept: kKept blocks of 64 * (t + 1) bytes per thread: 16 * 64 * (1 + ... + 8).
  const uint64_t expected = kKept * 64 * (kThreads * (kThreads + 1) / 2);
  const dpt_memory_stats stats = services.account(DPT_MEMORY_HOST).stats();
  EXPECT_EQ(stats.current_bytes, expected);
  EXPECT_EQ(stats.allocation_count, static_cast<uint64_t>(kThreads * kKept));
  EXPECT_GE(stats.peak_bytes, expected);
  for (auto& blocks : kept) {
    for (void* block : blocks) services.release(DPT_MEMORY_HOST, block);
  }
  EXPECT_EQ(services.account(DPT_MEMORY_HOST).stats().current_bytes, 0u);
}

TEST(MemoryAccount, LimitTurnsOverAllocationIntoOutOfMemory) {
  HostServices services(1, DPT_LOG_ERROR);
  services.set_device("cpu", 0, 10000);
  void* a = services.allocate(DPT_MEMORY_DEVICE, 6000, 0);
  try {
    services.allocate(DPT_MEMORY_DEVICE, 5000, 0);
    FAIL() << "allocation past the limit succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), DPT_OUT_OF_MEMORY);
    const std::string message = e.what();
    EXPECT_NE(message.find("device cpu:0"), std::string::npos) << message;
    EXPECT_NE(message.find("requested 5000 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("available 4000 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("10000-byte limit"), std::string::npos) << message;
  }
  // The failed request left the accounting untouched, but counts as demand; an allocation
  // that fits works.
  dpt_memory_stats stats = services.account(DPT_MEMORY_DEVICE).stats();
  EXPECT_EQ(stats.current_bytes, 6000u);
  EXPECT_EQ(stats.peak_bytes, 6000u);
  EXPECT_EQ(stats.peak_demand_bytes, 11000u);
  void* b = services.allocate(DPT_MEMORY_DEVICE, 4000, 0);
  stats = services.account(DPT_MEMORY_DEVICE).stats();
  EXPECT_EQ(stats.peak_bytes, 10000u);
  EXPECT_EQ(stats.limit_bytes, 10000u);
  services.release(DPT_MEMORY_DEVICE, a);
  services.release(DPT_MEMORY_DEVICE, b);
}

TEST(MemoryAccount, KindsAreAccountedSeparately) {
  HostServices services(1, DPT_LOG_ERROR);
  services.set_device("cpu", 0, 100);
  void* pinned = services.allocate(DPT_MEMORY_PINNED_HOST, 4096, 0);
  EXPECT_EQ(services.account(DPT_MEMORY_DEVICE).stats().current_bytes, 0u);
  EXPECT_EQ(services.account(DPT_MEMORY_PINNED_HOST).stats().current_bytes, 4096u);
  services.release(DPT_MEMORY_PINNED_HOST, pinned);
}

// Pinned memory goes back to the backend that allocated it (cudaHostAlloc memory must never
// reach std::free), so the device cannot change under it.
TEST(MemoryAccount, DeviceChangeIsRefusedWhilePinnedMemoryIsAllocated) {
  HostServices services(1, DPT_LOG_ERROR);
  void* pinned = services.allocate(DPT_MEMORY_PINNED_HOST, 4096, 0);
  try {
    services.set_device("cpu", 0, 0);
    FAIL() << "the device changed while pinned memory was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), DPT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("pinned host memory"), std::string::npos) << e.what();
  }
  services.release(DPT_MEMORY_PINNED_HOST, pinned);
  EXPECT_NO_THROW(services.set_device("cpu", 0, 0));
}

TEST(MemoryAccount, ResetPeakKeepsCurrent) {
  HostServices services(1, DPT_LOG_ERROR);
  void* a = services.allocate(DPT_MEMORY_HOST, 800, 0);
  void* b = services.allocate(DPT_MEMORY_HOST, 200, 0);
  services.release(DPT_MEMORY_HOST, b);
  services.reset_peaks();
  EXPECT_EQ(services.account(DPT_MEMORY_HOST).stats().peak_bytes, 800u);
  EXPECT_EQ(services.account(DPT_MEMORY_HOST).stats().peak_demand_bytes, 800u);
  services.release(DPT_MEMORY_HOST, a);
}

TEST(MemoryAccount, AlignmentIsHonouredAndValidated) {
  HostServices services(1, DPT_LOG_ERROR);
  void* p = services.allocate(DPT_MEMORY_DEVICE, 10, 4096);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  services.release(DPT_MEMORY_DEVICE, p);
  EXPECT_THROW(services.allocate(DPT_MEMORY_DEVICE, 10, 48), Error);
}

TEST(MemoryAccount, CudaWithoutGpuIsUnavailable) {
  HostServices services(1, DPT_LOG_ERROR);
  int gpus = 0;
  try {
    services.set_device("cuda", 0, 0);
    gpus = 1;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), DPT_UNAVAILABLE) << e.what();
  }
  if (gpus != 0) GTEST_SKIP() << "a GPU is present";
  // The CPU device is still in place after the refusal.
  EXPECT_FALSE(services.device().is_gpu());
}

}  // namespace
}  // namespace dopant
