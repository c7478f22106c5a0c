// The CUDA multi-tensor kernel against the CPU reference: every element bit-identical (NaN
// payloads aside: the device makes canonical NaNs), for fp32/bf16/f16, with enough tensors
// to need several launches, one tensor of more tiles than the grid has blocks, aligned
// tensors (four-element accesses and a scalar tail) and tensors one element off alignment
// (element by element). Skips when cudaGetDeviceCount finds no device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adamw_test_tensors.hpp"
#include "dopant/adamw_kernels/cuda_step.hpp"

namespace dopant::adamw_kernels::testing {
namespace {

// Throws, so that a failed CUDA call ends the test (gtest reports the exception) wherever it
// happens, constructors included.
void check(cudaError_t status) {
  if (status != cudaSuccess) throw std::runtime_error(cudaGetErrorString(status));
}

// One device copy of a TestTensor's buffers, each starting `offset` elements into its
// allocation (cudaMalloc aligns to 256 bytes).
class DeviceTensorCopy {
 public:
  DeviceTensorCopy(const TestTensor& host, size_t offset) : numel_(host.numel), offset_(offset) {
    param_ = upload(host.param.data(), host.param.size());
    grad_ = upload(host.grad.data(), host.grad.size());
    if (!host.master.empty()) master_ = upload(host.master.data(), host.master.size() * 4);
    exp_avg_ = upload(host.exp_avg.data(), numel_ * 4);
    exp_avg_sq_ = upload(host.exp_avg_sq.data(), numel_ * 4);
  }
  DeviceTensorCopy(const DeviceTensorCopy&) = delete;
  DeviceTensorCopy& operator=(const DeviceTensorCopy&) = delete;
  ~DeviceTensorCopy() {
    for (void* p : allocations_) cudaFree(p);
  }

  cuda::DeviceTensor device() const {
    return {{param_, grad_, static_cast<float*>(master_), static_cast<float*>(exp_avg_),
             static_cast<float*>(exp_avg_sq_)},
            numel_};
  }
  void download(TestTensor& host) const {
    check(cudaMemcpy(host.param.data(), param_, host.param.size(), cudaMemcpyDeviceToHost));
    if (master_ != nullptr) {
      check(cudaMemcpy(host.master.data(), master_, numel_ * 4, cudaMemcpyDeviceToHost));
    }
    check(cudaMemcpy(host.exp_avg.data(), exp_avg_, numel_ * 4, cudaMemcpyDeviceToHost));
    check(cudaMemcpy(host.exp_avg_sq.data(), exp_avg_sq_, numel_ * 4, cudaMemcpyDeviceToHost));
  }

 private:
  // `bytes` of [count] elements at `src`, copied `offset_` elements into a new allocation.
  void* upload(const void* src, size_t bytes) {
    const size_t skip = offset_ * (bytes / numel_);
    void* block = nullptr;
    check(cudaMalloc(&block, bytes + skip));
    allocations_.push_back(block);
    void* dst = static_cast<char*>(block) + skip;
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return dst;
  }
  size_t numel_;
  size_t offset_;
  std::vector<void*> allocations_;
  void* param_ = nullptr;
  void* grad_ = nullptr;
  void* master_ = nullptr;
  void* exp_avg_ = nullptr;
  void* exp_avg_sq_ = nullptr;
};

// Awkward lengths (vector tails of 1 to 3 elements), more tensors than one launch takes, and
// one tensor of more tiles than any GPU keeps resident blocks (an H200: 132 SMs x 4 blocks).
std::vector<size_t> tensor_lengths() {
  std::vector<size_t> lengths = {1, 7, 1023, 65537, 3 * cuda::kTileElements + 5, 6};
  lengths.insert(lengths.end(), cuda::kMaxTensorsPerLaunch + 6, 100);
  lengths.push_back(2000 * cuda::kTileElements + 3);
  return lengths;
}

// Steps every tensor of tensor_lengths() on the device, each buffer `offset` elements into
// its allocation, and with the reference; expects the same bits.
void expect_reference_bits(ParamDtype type, size_t offset) {
  std::vector<TestTensor> expected;
  for (size_t length : tensor_lengths()) {
    expected.push_back(random_tensor(type, length, expected.size()));
  }
  std::vector<TestTensor> actual = expected;
  std::vector<std::unique_ptr<DeviceTensorCopy>> copies;
  std::vector<cuda::DeviceTensor> device;
  for (const TestTensor& t : actual) {
    copies.push_back(std::make_unique<DeviceTensorCopy>(t, offset));
    device.push_back(copies.back()->device());
  }
  for (StepHyper hyper : test_hypers()) {
    for (int repeat = 0; repeat < 2; ++repeat, ++hyper.step) {
      const StepScalars scalars = make_step_scalars(hyper);
      for (TestTensor& t : expected) {
        step_range(Variant::reference, type, scalars, t.refs(), 0, t.numel);
      }
      cuda::launch_step(type, scalars, device.data(), device.size(), nullptr);
    }
  }
  check(cudaDeviceSynchronize());
  for (size_t t = 0; t < actual.size(); ++t) {
    copies[t]->download(actual[t]);
    EXPECT_TRUE(same_bits_but_nan_payloads(expected[t], actual[t]))
        << "tensor " << t << " of " << actual[t].numel << " elements, offset " << offset;
  }
}

class CudaStepTest : public ::testing::TestWithParam<ParamDtype> {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount found none)";
  }
};

TEST_P(CudaStepTest, AlignedTensorsMatchTheReference) { expect_reference_bits(GetParam(), 0); }

TEST_P(CudaStepTest, UnalignedTensorsMatchTheReference) { expect_reference_bits(GetParam(), 1); }

INSTANTIATE_TEST_SUITE_P(ParamDtypes, CudaStepTest,
                         ::testing::Values(ParamDtype::f32, ParamDtype::bf16, ParamDtype::f16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace dopant::adamw_kernels::testing
