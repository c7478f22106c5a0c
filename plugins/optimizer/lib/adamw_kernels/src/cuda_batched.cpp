// launch_batched: runs of launch_step (see cuda_step.hpp). Host code, built with CUDA.
#include <cstring>
#include <vector>

#include "dopant/adamw_kernels/cuda_step.hpp"

namespace dopant::adamw_kernels::cuda {

void launch_batched(const BatchedTensor* tensors, size_t count, void* stream) {
  const auto same_run = [](const BatchedTensor& a, const BatchedTensor& b) {
    return a.type == b.type && std::memcmp(&a.scalars, &b.scalars, sizeof(StepScalars)) == 0;
  };
  std::vector<DeviceTensor> batch;
  for (size_t i = 0; i < count; ++i) {
    const BatchedTensor& t = tensors[i];
    if (t.tensor.numel != 0) batch.push_back(t.tensor);
    const bool run_ends = i + 1 == count || !same_run(t, tensors[i + 1]);
    if (run_ends && !batch.empty()) {
      launch_step(t.type, t.scalars, batch.data(), batch.size(), stream);
      batch.clear();
    }
  }
}

}  // namespace dopant::adamw_kernels::cuda
