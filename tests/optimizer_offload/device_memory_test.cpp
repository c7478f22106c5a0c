// Device memory of adamw-chunked-offload, measured by the host's accounting: the peak stays
// within params + grads + 2 x chunk + 5% while adamw needs its whole state on the device;
// the `memory` slot reports where state is for offload fractions 0, 0.5 and 1; and under a
// device memory limit adamw fails with DPT_OUT_OF_MEMORY naming the bytes while the
// offload runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offload_harness.hpp"

namespace dopant::offload_testing {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
// Four fp32 tensors, 5.5 M parameters: 22 MB of parameters, 44 MB of adamw state.
const std::vector<std::vector<uint64_t>> kModel = {{1000000, 2500000, 700000, 1300000}};
constexpr uint64_t kStateBytesPerParameter = 8;  // fp32: exp_avg and exp_avg_sq

uint64_t parameter_count() {
  uint64_t count = 0;
  for (uint64_t n : kModel[0]) count += n;
  return count;
}

// Peak device bytes of two steps of `table` on a fresh runtime, counted from before the
// model was allocated.
uint64_t peak_device_bytes(const std::string& table) {
  Harness harness;
  DeviceModel model(harness.host(), kFp32, kModel);
  Optimizer optimizer(harness.runtime(), table);
  EXPECT_EQ(optimizer.add_group(model.group(0)).code, DPT_OK);
  for (uint64_t step = 1; step <= 2; ++step) {
    model.set_gradients(step);
    EXPECT_EQ(optimizer.step(1.0, 1.0).code, DPT_OK);
  }
  return harness.device_memory().peak_bytes;
}

TEST(DeviceMemory, OffloadPeakIsParamsGradsAndTwoChunks) {
  const uint64_t params_and_grads = 2 * parameter_count() * sizeof(float);
  const uint64_t chunk = 4 * kMiB;
  const uint64_t offload =
      peak_device_bytes("plugin = \"adamw-chunked-offload\"\nchunk = \"4MiB\"");
  const uint64_t adamw = peak_device_bytes("plugin = \"adamw\"");
  EXPECT_LE(offload, (params_and_grads + 2 * chunk) * 105 / 100);
  EXPECT_GE(offload, params_and_grads + chunk) << "the slots were not on the device";
  EXPECT_GE(adamw, params_and_grads + kStateBytesPerParameter * parameter_count());
}

TEST(DeviceMemory, MemorySlotFollowsTheOffloadFraction) {
  const uint64_t state = kStateBytesPerParameter * parameter_count();
  for (const double fraction : {0.0, 0.5, 1.0}) {
    SCOPED_TRACE("offload_fraction " + std::to_string(fraction));
    Harness harness;
    DeviceModel model(harness.host(), kFp32, kModel);
    Optimizer optimizer(harness.runtime(), "plugin = \"adamw-chunked-offload\"\nchunk = "
                                           "\"4MiB\"\noffload_fraction = " +
                                               std::to_string(fraction));
    ASSERT_EQ(optimizer.add_group(model.group(0)).code, DPT_OK);
    const dpt_optimizer_memory memory = optimizer.memory();
    const uint64_t held = memory.device_state_bytes + memory.host_state_bytes;
    EXPECT_GE(held, state);
    EXPECT_LE(held, state + 4 * 3 * 64);  // padding: at most 64 bytes per array
    EXPECT_GE(static_cast<double>(memory.host_state_bytes), fraction * static_cast<double>(state));
    if (fraction == 0.0) {
      EXPECT_EQ(memory.host_state_bytes, 0u);
      EXPECT_EQ(memory.device_staging_bytes, 0u);
    } else {
      EXPECT_GT(memory.device_staging_bytes, 0u);
      EXPECT_LE(memory.device_staging_bytes, 2 * 4 * kMiB);
    }
    if (fraction == 1.0) {
      EXPECT_EQ(memory.device_state_bytes, 0u);
    }
    if (fraction == 0.5) {
      EXPECT_GT(memory.device_state_bytes, 0u);
    }
  }
}

// The host's measured device peak, not only the plugin's own report, follows the fraction:
// at 0.5 it lies between params + grads + the state kept on the device and that plus two
// chunks (5% slack), and it grows as the fraction falls. A plugin whose `memory` slot
// counts state kept on the device as host state (the mutant, tried in
// chunked_offload_adamw.cpp) fails here: the host measured what it did not report.
TEST(DeviceMemory, DevicePeakFollowsTheOffloadFraction) {
  const uint64_t params_and_grads = 2 * parameter_count() * sizeof(float);
  std::vector<uint64_t> peaks;
  for (const double fraction : {1.0, 0.5, 0.0}) {
    SCOPED_TRACE("offload_fraction " + std::to_string(fraction));
    Harness harness;
    DeviceModel model(harness.host(), kFp32, kModel);
    Optimizer optimizer(harness.runtime(), "plugin = \"adamw-chunked-offload\"\nchunk = \"4MiB\"\noffload_fraction = " +
                                               std::to_string(fraction));
    ASSERT_EQ(optimizer.add_group(model.group(0)).code, DPT_OK);
    for (uint64_t step = 1; step <= 2; ++step) {
      model.set_gradients(step);
      ASSERT_EQ(optimizer.step(1.0, 1.0).code, DPT_OK);
    }
    const dpt_optimizer_memory memory = optimizer.memory();
    const uint64_t peak = harness.device_memory().peak_bytes;
    EXPECT_GE(peak, params_and_grads + memory.device_state_bytes);
    EXPECT_LE(peak, (params_and_grads + memory.device_state_bytes + memory.device_staging_bytes) * 105 / 100);
    if (fraction == 0.5) {
      const uint64_t state = kStateBytesPerParameter * parameter_count();
      EXPECT_GE(memory.device_state_bytes, state / 4) << "too little kept on the device";
      EXPECT_LE(memory.device_state_bytes, state / 2 + 3 * 64) << "more than half kept on the device";
    }
    peaks.push_back(peak);
  }
  EXPECT_LT(peaks[0], peaks[1]);
  EXPECT_LT(peaks[1], peaks[2]);
}

TEST(DeviceMemory, UnderALimitAdamwRunsOutOfMemoryAndOffloadRuns) {
  const uint64_t params_and_grads = 2 * parameter_count() * sizeof(float);
  const uint64_t limit = (params_and_grads + 2 * 4 * kMiB) * 105 / 100;
  Harness harness(limit);
  DeviceModel model(harness.host(), kFp32, kModel);
  {
    Optimizer adamw(harness.runtime(), "plugin = \"adamw\"");
    const Outcome refused = adamw.add_group(model.group(0));
    EXPECT_EQ(refused.code, DPT_OUT_OF_MEMORY);
    EXPECT_NE(refused.message.find("requested"), std::string::npos) << refused.message;
    EXPECT_NE(refused.message.find(std::to_string(limit) + "-byte limit"), std::string::npos)
        << refused.message;
  }
  Optimizer offload(harness.runtime(), "plugin = \"adamw-chunked-offload\"\nchunk = \"4MiB\"");
  const Outcome added = offload.add_group(model.group(0));
  ASSERT_EQ(added.code, DPT_OK) << added.message;
  model.set_gradients(1);
  const Outcome stepped = offload.step(1.0, 1.0);
  EXPECT_EQ(stepped.code, DPT_OK) << stepped.message;
  EXPECT_LE(harness.device_memory().peak_bytes, limit);
}

}  // namespace
}  // namespace dopant::offload_testing
