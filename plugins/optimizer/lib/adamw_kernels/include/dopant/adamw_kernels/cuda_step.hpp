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

// A launch covers at most this many tensors; longer lists take several launches.
inline constexpr size_t kMaxTensorsPerLaunch = 48;
// Each CUDA block updates tiles of this many consecutive elements of one tensor, striding
// over the launch's tiles; the grid holds as many blocks as the device keeps resident.
inline constexpr uint64_t kTileElements = 2048;

// Queues the update of `count` tensors on `stream` (a cudaStream_t; nullptr: the legacy
// default stream) of the calling thread's current device. `tensors` is host memory and is
// read before the call returns; the device buffers must stay alive until the stream has run
// the work. A tensor whose fp32 buffers are 16-byte aligned and whose 16-bit buffers are
// 8-byte aligned is read and written four elements at a time, any other element by element;
// both give the same bits. Throws std::invalid_argument for bad arguments and
// std::runtime_error when a launch fails.
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

// Makes `device` the calling thread's current CUDA device for the scope's lifetime and then
// restores the thread's previous one: plugin entries that launch may be called from any
// thread. Throws std::runtime_error when the device cannot be made current.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

}  // namespace dopant::adamw_kernels::cuda
