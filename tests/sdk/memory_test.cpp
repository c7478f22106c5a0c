// sdk::Allocation: memory from the host is accounted while alive and returned when the
// owner goes away or moves it; a refusal from the host becomes an exception.
#include <dopant/sdk/memory.hpp>

#include "test_runtime.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace sdk = dopant::sdk;

namespace {

uint64_t device_bytes(const dpt_host* host) {
  dpt_memory_stats stats{};
  stats.struct_size = DPT_MEMORY_STATS_SIZE_1_0;
  EXPECT_EQ(take_error(host, host->memory_stats(host, DPT_MEMORY_DEVICE, &stats)).message, "");
  return stats.current_bytes;
}

TEST(SdkMemory, AllocationIsAccountedUntilItsOwnerGoesAway) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  const uint64_t before = device_bytes(host);
  {
    sdk::Allocation first(host, DPT_MEMORY_DEVICE, 4096);
    ASSERT_NE(first.data(), nullptr);
    EXPECT_EQ(device_bytes(host), before + 4096);
    sdk::Allocation second = std::move(first);
    EXPECT_EQ(first.data(), nullptr);
    EXPECT_EQ(second.bytes(), 4096u);
    EXPECT_EQ(device_bytes(host), before + 4096);
  }
  EXPECT_EQ(device_bytes(host), before);
}

TEST(SdkMemory, RefusalOverTheLimitThrowsOutOfMemory) {
  TestRuntime runtime;
  const dpt_device_options cpu{DPT_DEVICE_OPTIONS_SIZE_1_0, "cpu", 0, 1 << 20};
  ASSERT_EQ(take_error(runtime.host(), dpt_runtime_set_device(runtime.get(), &cpu)).message, "");
  try {
    sdk::Allocation too_big(runtime.host(), DPT_MEMORY_DEVICE, 2 << 20);
    ADD_FAILURE() << "2 MiB under a 1 MiB limit was granted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_OUT_OF_MEMORY);
  }
}

}  // namespace
