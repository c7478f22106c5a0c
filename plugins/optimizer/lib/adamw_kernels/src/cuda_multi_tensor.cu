// CUDA multi-tensor AdamW: the host side packs (tensor, chunk) pairs into the kernel's
// by-value argument, up to kMaxTensorsPerLaunch tensors and kMaxChunksPerLaunch chunks per
// launch; each block strides over one chunk. The element update uses __f*_rn intrinsics in
// the reference's order, so nothing is contracted or approximated.
#include <cuda_runtime.h>
#include <dopant/sdk/float16.hpp>

#include <stdexcept>
#include <string>

#include "dopant/adamw_kernels/cuda_step.hpp"

namespace dopant::adamw_kernels::cuda {
namespace {

constexpr int kThreadsPerBlock = 512;

// The kernel's argument: which tensor and which chunk each block updates. ~2.8 KB, inside
// the 4 KB kernel parameter limit.
struct LaunchBatch {
  TensorRefs tensors[kMaxTensorsPerLaunch];
  uint64_t numel[kMaxTensorsPerLaunch];
  uint8_t block_tensor[kMaxChunksPerLaunch];
  uint32_t block_chunk[kMaxChunksPerLaunch];
};
static_assert(sizeof(LaunchBatch) + sizeof(StepScalars) <= 4096);
static_assert(kMaxTensorsPerLaunch <= 256, "block_tensor is a uint8_t");

template <ParamDtype Type>
__device__ float load_grad(const void* grad, uint64_t i) {
  if constexpr (Type == ParamDtype::f32) {
    return static_cast<const float*>(grad)[i];
  } else if constexpr (Type == ParamDtype::bf16) {
    return sdk::bf16_to_float(static_cast<const uint16_t*>(grad)[i]);
  } else {
    return sdk::half_to_float(static_cast<const uint16_t*>(grad)[i]);
  }
}

template <ParamDtype Type>
__device__ void update_element(const StepScalars& s, const TensorRefs& t, uint64_t i) {
  float* weights = Type == ParamDtype::f32 ? static_cast<float*>(t.param) : t.master;
  const float g = __fmul_rn(load_grad<Type>(t.grad, i), s.inv_grad_scale);
  const float decayed = __fmul_rn(weights[i], s.decay);
  const float m = __fmaf_rn(g, s.one_minus_beta1, __fmul_rn(t.exp_avg[i], s.beta1));
  const float v =
      __fmaf_rn(__fmul_rn(s.one_minus_beta2, g), g, __fmul_rn(t.exp_avg_sq[i], s.beta2));
  const float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(v), s.bias_correction2_sqrt), s.eps);
  const float weight = __fadd_rn(decayed, __fdiv_rn(__fmul_rn(s.neg_step_size, m), denom));
  t.exp_avg[i] = m;
  t.exp_avg_sq[i] = v;
  weights[i] = weight;
  if constexpr (Type == ParamDtype::bf16) {
    static_cast<uint16_t*>(t.param)[i] = sdk::float_to_bf16(weight);
  } else if constexpr (Type == ParamDtype::f16) {
    static_cast<uint16_t*>(t.param)[i] = sdk::float_to_half(weight);
  }
}

template <ParamDtype Type>
__global__ void adamw_multi_tensor(LaunchBatch batch, StepScalars scalars) {
  const uint32_t tensor = batch.block_tensor[blockIdx.x];
  const uint64_t begin = uint64_t{batch.block_chunk[blockIdx.x]} * kChunkElements;
  const uint64_t end = min(begin + kChunkElements, batch.numel[tensor]);
  const TensorRefs refs = batch.tensors[tensor];
  for (uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    update_element<Type>(scalars, refs, i);
  }
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("AdamW CUDA ") + what + ": " +
                             cudaGetErrorString(status));
  }
}

template <ParamDtype Type>
void launch_typed(const StepScalars& scalars, const DeviceTensor* tensors, size_t count,
                  cudaStream_t stream) {
  LaunchBatch batch{};
  size_t tensors_in_batch = 0;
  size_t chunks_in_batch = 0;
  const auto flush = [&] {
    if (chunks_in_batch == 0) return;
    adamw_multi_tensor<Type><<<static_cast<unsigned>(chunks_in_batch), kThreadsPerBlock, 0,
                               stream>>>(batch, scalars);
    check(cudaGetLastError(), "launch");
    tensors_in_batch = 0;
    chunks_in_batch = 0;
  };
  for (size_t t = 0; t < count; ++t) {
    const uint64_t chunks = (tensors[t].numel + kChunkElements - 1) / kChunkElements;
    for (uint64_t chunk = 0; chunk < chunks; ++chunk) {
      if (chunk == 0 || tensors_in_batch == 0) {  // (re)enter this tensor in the batch
        if (tensors_in_batch == kMaxTensorsPerLaunch) flush();
        batch.tensors[tensors_in_batch] = tensors[t].refs;
        batch.numel[tensors_in_batch] = tensors[t].numel;
        ++tensors_in_batch;
      }
      batch.block_tensor[chunks_in_batch] = static_cast<uint8_t>(tensors_in_batch - 1);
      batch.block_chunk[chunks_in_batch] = static_cast<uint32_t>(chunk);
      ++chunks_in_batch;
      if (chunks_in_batch == kMaxChunksPerLaunch) flush();
    }
  }
  flush();
}

}  // namespace

void launch_step(ParamDtype type, const StepScalars& scalars, const DeviceTensor* tensors,
                 size_t count, void* stream) {
  if (count != 0 && tensors == nullptr) throw std::invalid_argument("AdamW CUDA: no tensors");
  for (size_t t = 0; t < count; ++t) {
    if ((type == ParamDtype::f32) != (tensors[t].refs.master == nullptr)) {
      throw std::invalid_argument("AdamW CUDA: master weights are for bf16/f16 parameters only");
    }
    if ((tensors[t].numel + kChunkElements - 1) / kChunkElements > UINT32_MAX) {
      throw std::invalid_argument("AdamW CUDA: tensor too large");
    }
  }
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  switch (type) {
    case ParamDtype::f32: return launch_typed<ParamDtype::f32>(scalars, tensors, count, cuda_stream);
    case ParamDtype::bf16: return launch_typed<ParamDtype::bf16>(scalars, tensors, count, cuda_stream);
    case ParamDtype::f16: return launch_typed<ParamDtype::f16>(scalars, tensors, count, cuda_stream);
  }
}

bool device_available() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

}  // namespace dopant::adamw_kernels::cuda
