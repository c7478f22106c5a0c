// The CUDA AdamW update: one multi-tensor launch covers many tensors (or chunks of them) of
// one param group, as PyTorch's fused multi_tensor_apply does. Per element it performs the
// reference's operations in the reference's order with round-to-nearest intrinsics (no
// contraction, no approximate division or square root) and the reference's 16-bit
// conversions, so device results equal the CPU reference bit for bit.
// Available when the library was built with CUDA (DOPANT_ADAMW_HAVE_CUDA is defined).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"

namespace dopant::adamw_kernels::cuda {

// One tensor, or one chunk of one, in device memory: `refs` as for step_range, `numel`
// elements from each pointer.
struct DeviceTensor {
  TensorRefs refs;
  uint64_t numel;
};

// Each CUDA block updates one chunk of this many elements of one tensor.
inline constexpr uint64_t kChunkElements = 65536;
// A launch covers at most this many tensors and chunks; longer lists take several launches.
inline constexpr size_t kMaxTensorsPerLaunch = 24;
inline constexpr size_t kMaxChunksPerLaunch = 320;

// Queues the update of `count` tensors on `stream` (a cudaStream_t; nullptr: the legacy
// default stream). `tensors` is host memory and is read before the call returns; the device
// buffers must stay alive until the stream has run the work. Throws std::invalid_argument for
// bad arguments and std::runtime_error when a launch fails.
void launch_step(ParamDtype type, const StepScalars& scalars, const DeviceTensor* tensors,
                 size_t count, void* stream);

// One tensor's update in a launch_batched list.
struct BatchedTensor {
  ParamDtype type;
  StepScalars scalars;
  DeviceTensor tensor;
};

// Queues the updates of `count` tensors on `stream` as launch_step does, with one launch_step
// per run of consecutive tensors of the same dtype and bit-identical scalars; tensors of no
// elements are left out.
void launch_batched(const BatchedTensor* tensors, size_t count, void* stream);

// Whether the CUDA runtime sees at least one device.
bool device_available();

}  // namespace dopant::adamw_kernels::cuda
