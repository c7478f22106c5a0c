// What one step does, as the CPU and CUDA pipelines see it: every state image with the
// updates of its segments, and the per-tensor step scalars. Built by the optimizer when
// groups are added; only `scalars` changes from step to step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_offload {

// The update of one segment: its slice of the parameter and gradient, and where its state
// arrays are in the image (byte offsets; `master` is meaningful only for bf16/fp16).
struct SegmentUpdate {
  adamw_kernels::ParamDtype dtype;
  uint32_t scalars;   // index into StepWork::scalars (the tensor's index)
  void* param;        // [count] dtype, device memory, first element of the slice
  const void* grad;   // [count] dtype, device memory
  uint64_t count;
  uint64_t exp_avg;
  uint64_t exp_avg_sq;
  uint64_t master;

  // The kernel's view with the image at `base` (its home, or the device slot it is in).
  adamw_kernels::TensorRefs refs(std::byte* base) const {
    return adamw_kernels::TensorRefs{
        param, grad,
        dtype == adamw_kernels::ParamDtype::f32 ? nullptr : reinterpret_cast<float*>(base + master),
        reinterpret_cast<float*>(base + exp_avg), reinterpret_cast<float*>(base + exp_avg_sq)};
  }
};

// A state image: `bytes` at `home`, and the updates of its segments.
struct ImageWork {
  std::byte* home;
  uint64_t bytes;
  std::vector<SegmentUpdate> segments;
};

struct StepWork {
  std::vector<adamw_kernels::StepScalars> scalars;  // one per tensor, for the coming step
  std::vector<ImageWork> resident;          // device memory, updated where they are
  std::vector<ImageWork> streamed;          // pinned host memory, streamed through the slots
};

}  // namespace dopant::adamw_offload
