// Both AdamW plugins on a CUDA device driven the way a trainer drives them, each compared
// bit for bit with `adamw` on the CPU: steps queued on a non-blocking stream the test
// creates, gradients uploaded on it without a synchronize, a param group added after steps
// (the offload slots grow), the stream destroyed right after the last step and the state
// exported at once; two optimizers stepping on two streams with no device-wide synchronize
// between their steps; steps from a thread whose current device is another one, on the
// device index of DOPANT_TEST_CUDA_DEVICE; and steps after the host refused a device and a
// pinned allocation. Every plugin runs as `adamw` and as `adamw-chunked-offload` at
// offload_fraction 0, 0.5 and 1. Skipped when no CUDA device is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "offload_harness.hpp"

namespace dopant::offload_testing {
namespace {

// Group 0 is small; group 1's largest chunk needs larger slots than group 0's.
const std::vector<std::vector<uint64_t>> kModel = {{33, 4099}, {150001, 1000003, 7}};

const char* const kGpuOptimizers[] = {
    "plugin = \"adamw\"",
    "plugin = \"adamw-chunked-offload\"\nchunk = \"1MiB\"\noffload_fraction = 0",
    "plugin = \"adamw-chunked-offload\"\nchunk = \"1MiB\"\noffload_fraction = 0.5",
    "plugin = \"adamw-chunked-offload\"\nchunk = \"1MiB\"\noffload_fraction = 1",
};

constexpr uint64_t kSteps = 4;

// An optimizer of `table` on a fresh kModel of `dtype`, in `harness`'s runtime.
struct Trainee {
  Trainee(const Harness& harness, DLDataType dtype, const char* table)
      : model(harness.host(), dtype, kModel), optimizer(harness.runtime(), table) {}
  // The final parameters, with `state` exported before them.
  TrainResult result(ExportedState state) const { return {model.parameters(), std::move(state)}; }

  DeviceModel model;
  Optimizer optimizer;
};

// The steps of the late-group scenario: steps 1-2 on group 0, then group 1 joins, steps 3-4
// on both, every gradient upload and step queued on `stream`.
void steps_with_a_late_group(Optimizer& optimizer, DeviceModel& model, dpt_stream* stream) {
  check_ok(optimizer.add_group(model.group(0)), "add group 0");
  run_steps(optimizer, model, 1, 2, stream);
  check_ok(optimizer.add_group(model.group(1)), "add group 1");
  run_steps(optimizer, model, 3, kSteps, stream);
}

// What every GPU run must equal: adamw on the CPU, through the late-group scenario or with
// every group from the start.
TrainResult cpu_with_a_late_group(DLDataType dtype) {
  Harness harness(0, "cpu");
  Trainee cpu(harness, dtype, "plugin = \"adamw\"");
  steps_with_a_late_group(cpu.optimizer, cpu.model, nullptr);
  return cpu.result(cpu.optimizer.export_state());
}
TrainResult cpu_with_all_groups(DLDataType dtype) {
  return train("cpu", dtype, kModel, "plugin = \"adamw\"", kSteps);
}

void expect_equal(const TrainResult& expected, const TrainResult& actual) {
  EXPECT_EQ(actual.parameters, expected.parameters);
  EXPECT_EQ(actual.state.size(), expected.state.size());
  EXPECT_TRUE(actual.state == expected.state) << "exported state differs from adamw on the CPU";
}

// A created stream; the test destroys it itself.
dpt_stream* new_stream(const dpt_host* host) {
  dpt_stream* stream = nullptr;
  check_ok(take(host->stream_create(host, &stream)), "stream_create");
  return stream;
}

// The device index the runs use: DOPANT_TEST_CUDA_DEVICE, or 0.
int32_t device_from_environment() {
  const char* text = std::getenv("DOPANT_TEST_CUDA_DEVICE");
  return text != nullptr ? static_cast<int32_t>(std::atoi(text)) : 0;
}

class CudaTrainer : public ::testing::TestWithParam<DLDataType> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(CudaTrainer, StepsOnACallerStreamWithALateGroupAndAnExportRightAfter) {
  const TrainResult expected = cpu_with_a_late_group(GetParam());
  for (const char* table : kGpuOptimizers) {
    SCOPED_TRACE(table);
    Harness harness(0, "cuda");
    Trainee gpu(harness, GetParam(), table);
    dpt_stream* stream = new_stream(harness.host());
    steps_with_a_late_group(gpu.optimizer, gpu.model, stream);
    harness.host()->stream_destroy(harness.host(), stream);  // the plugin must not keep using it
    expect_equal(expected, gpu.result(gpu.optimizer.export_state()));  // no synchronize before
  }
}

TEST_P(CudaTrainer, TwoOptimizersStepOnTwoStreamsWithoutADeviceSynchronize) {
  const TrainResult expected = cpu_with_all_groups(GetParam());
  for (const char* table : kGpuOptimizers) {
    SCOPED_TRACE(table);
    Harness harness(0, "cuda");
    const dpt_host* host = harness.host();
    Trainee first(harness, GetParam(), table), second(harness, GetParam(), table);
    add_groups(first.optimizer, first.model);
    add_groups(second.optimizer, second.model);
    dpt_stream* first_stream = new_stream(host);
    dpt_stream* second_stream = new_stream(host);
    for (uint64_t step = 1; step <= kSteps; ++step) {
      run_steps(first.optimizer, first.model, step, step, first_stream);
      run_steps(second.optimizer, second.model, step, step, second_stream);
    }
    ExportedState first_state = first.optimizer.export_state();  // no synchronize before them
    ExportedState second_state = second.optimizer.export_state();
    host->stream_destroy(host, first_stream);
    host->stream_destroy(host, second_stream);
    expect_equal(expected, first.result(std::move(first_state)));
    expect_equal(expected, second.result(std::move(second_state)));
  }
}

// On a machine with several GPUs, run with DOPANT_TEST_CUDA_DEVICE=1 (or higher): the steps
// then come from a thread whose current device is another GPU.
TEST_P(CudaTrainer, StepsFromAnotherThreadUseTheRunsDevice) {
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  const int32_t index = device_from_environment();
  ASSERT_GE(index, 0);
  ASSERT_LT(index, devices) << "DOPANT_TEST_CUDA_DEVICE names no GPU of this machine";
  const int other = (index + 1) % devices;
  const TrainResult expected = cpu_with_all_groups(GetParam());
  for (const char* table : kGpuOptimizers) {
    SCOPED_TRACE(table);
    Harness harness(0, "cuda", index);
    Trainee gpu(harness, GetParam(), table);
    cudaPointerAttributes where{};
    ASSERT_EQ(cudaPointerGetAttributes(&where, gpu.model.group(0).params[0].data), cudaSuccess);
    EXPECT_EQ(where.device, index) << "the host allocated on another GPU";
    int current = -1;
    std::string failure;
    std::thread trainer([&] {
      try {
        if (cudaSetDevice(other) != cudaSuccess) throw std::runtime_error("cudaSetDevice");
        add_groups(gpu.optimizer, gpu.model);
        run_steps(gpu.optimizer, gpu.model, 1, kSteps);
        cudaGetDevice(&current);
      } catch (const std::exception& e) {
        failure = e.what();
      }
    });
    trainer.join();
    ASSERT_EQ(failure, "");
    EXPECT_EQ(current, other) << "a host service or the plugin left the thread on another GPU";
    expect_equal(expected, gpu.result(gpu.optimizer.export_state()));
  }
}

TEST_P(CudaTrainer, StepsAfterRefusedAllocationsSucceed) {
  const TrainResult expected = cpu_with_all_groups(GetParam());
  for (const char* table : kGpuOptimizers) {
    SCOPED_TRACE(table);
    Harness harness(0, "cuda");
    const dpt_host* host = harness.host();
    Trainee gpu(harness, GetParam(), table);
    add_groups(gpu.optimizer, gpu.model);
    run_steps(gpu.optimizer, gpu.model, 1, 1);
    // No memory limit is set: the requests reach cudaMalloc and cudaHostAlloc, which fail.
    void* refused = nullptr;
    const uint64_t huge = uint64_t{1} << 50;  // 1 PiB
    EXPECT_EQ(take(host->alloc(host, DPT_MEMORY_DEVICE, huge, 0, &refused)).code,
              DPT_OUT_OF_MEMORY);
    EXPECT_EQ(take(host->alloc(host, DPT_MEMORY_PINNED_HOST, huge, 0, &refused)).code,
              DPT_OUT_OF_MEMORY);
    EXPECT_EQ(refused, nullptr);
    run_steps(gpu.optimizer, gpu.model, 2, kSteps);
    expect_equal(expected, gpu.result(gpu.optimizer.export_state()));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaTrainer, ::testing::Values(kFp32, kBf16, kFp16),
                         [](const auto& info) { return dtype_name(info.param); });

}  // namespace
}  // namespace dopant::offload_testing
