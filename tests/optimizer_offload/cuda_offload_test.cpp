// adamw-chunked-offload on a CUDA device: pinned host state streamed through the slots on a
// copy stream gives the same parameters and state as `adamw` on the device and as `adamw`
// on the CPU (the kernels give the reference's bits everywhere), and the device peak stays
// within params + grads + 2 x chunk + 5%. Skipped when no CUDA device is present.
#include <gtest/gtest.h>

#include <string>

#include "offload_harness.hpp"

namespace dopant::offload_testing {
namespace {

const std::vector<std::vector<uint64_t>> kModel = {{150001, 1000003, 400007}, {33, 1, 4099}};

class CudaOffload : public ::testing::TestWithParam<DLDataType> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(CudaOffload, EqualsAdamwOnTheDeviceAndOnTheCpu) {
  const DLDataType dtype = GetParam();
  const TrainResult cpu = train("cpu", dtype, kModel, "plugin = \"adamw\"", 3);
  const TrainResult gpu = train("cuda", dtype, kModel, "plugin = \"adamw\"", 3);
  for (const char* fraction : {"0.5", "1"}) {
    SCOPED_TRACE(std::string("offload_fraction ") + fraction);
    const TrainResult offload =
        train("cuda", dtype, kModel,
              std::string("plugin = \"adamw-chunked-offload\"\nchunk = \"1MiB\"\n"
                          "offload_fraction = ") + fraction,
              3);
    EXPECT_EQ(offload.parameters, gpu.parameters);
    EXPECT_EQ(offload.state, gpu.state);
    EXPECT_EQ(offload.parameters, cpu.parameters);
  }
}

TEST_P(CudaOffload, DevicePeakIsParamsGradsAndTwoChunks) {
  const DLDataType dtype = GetParam();
  Harness harness(0, "cuda");
  DeviceModel model(harness.host(), dtype, kModel);
  Optimizer optimizer(harness.runtime(), "plugin = \"adamw-chunked-offload\"\nchunk = \"1MiB\"");
  ASSERT_EQ(optimizer.add_group(model.group(0)).code, DPT_OK);
  ASSERT_EQ(optimizer.add_group(model.group(1)).code, DPT_OK);
  run_steps(optimizer, model, 1, 2);
  const uint64_t bound = (2 * model.parameter_bytes() + 2 * (uint64_t{1} << 20)) * 105 / 100;
  EXPECT_LE(harness.device_memory().peak_bytes, bound);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaOffload, ::testing::Values(kFp32, kBf16, kFp16),
                         [](const auto& info) { return dtype_name(info.param); });

}  // namespace
}  // namespace dopant::offload_testing
