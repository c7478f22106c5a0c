// CUDA multi-tensor AdamW: the host side packs up to kMaxTensorsPerLaunch tensors into the
// kernel's by-value argument, cut into tiles of kTileElements; a grid sized to fill the
// device once (SMs x resident blocks per SM) strides over the tiles. Aligned tensors move
// four elements per load and store (16 bytes of fp32, 8 of bf16/f16), with the last
// partial vector of a tensor done element by element. The element update uses __f*_rn
// intrinsics in the reference's order, so nothing is contracted or approximated and every
// path gives the same bits.
#include <cuda_runtime.h>
#include <dopant/sdk/float16.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dopant/adamw_kernels/cuda_step.hpp"

namespace dopant::adamw_kernels::cuda {
namespace {

constexpr int kThreadsPerBlock = 512;
constexpr uint64_t kVector = 4;  // elements per vector access
static_assert(kTileElements == kVector * kThreadsPerBlock, "one vector per thread per tile");

// The kernel's argument: the tensors and where each one's tiles start in the launch's tile
// sequence (tile_begin[k] .. tile_begin[k + 1]). ~2.8 KB, inside the 4 KB parameter limit.
struct LaunchBatch {
  TensorRefs tensors[kMaxTensorsPerLaunch];
  uint64_t numel[kMaxTensorsPerLaunch];
  uint64_t tile_begin[kMaxTensorsPerLaunch + 1];
  uint64_t vectorized;  // bit k: tensor k takes the four-element path
  uint32_t count;
};
static_assert(sizeof(LaunchBatch) + sizeof(StepScalars) <= 4096);
static_assert(kMaxTensorsPerLaunch <= 64, "`vectorized` has one bit per tensor");

// The values one element's update reads and writes; `grad` already widened to fp32.
struct Element {
  float grad;
  float weight;  // fp32 parameter or master weight
  float exp_avg;
  float exp_avg_sq;
};

// The reference's update of one element (kernels.hpp), operation for operation.
__device__ Element updated(const StepScalars& s, Element e) {
  const float g = __fmul_rn(e.grad, s.inv_grad_scale);                            // g = grad * inv_grad_scale
  const float decayed = __fmul_rn(e.weight, s.decay);                              // p * decay
  const float m = __fmaf_rn(g, s.one_minus_beta1, __fmul_rn(e.exp_avg, s.beta1));  // fma(g, 1-b1, m*b1)
  const float v =                                                                  // fma((1-b2)*g, g, v*b2)
      __fmaf_rn(__fmul_rn(s.one_minus_beta2, g), g, __fmul_rn(e.exp_avg_sq, s.beta2));
  const float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(v), s.bias_correction2_sqrt), s.eps);
  const float weight = __fadd_rn(decayed, __fdiv_rn(__fmul_rn(s.neg_step_size, m), denom));
  return Element{e.grad, weight, m, v};
}

template <ParamDtype Type>
__device__ float widen(uint16_t bits) {
  if constexpr (Type == ParamDtype::bf16) {
    return sdk::bf16_to_float(bits);
  } else {
    return sdk::half_to_float(bits);
  }
}

template <ParamDtype Type>
__device__ uint16_t narrow(float value) {
  if constexpr (Type == ParamDtype::bf16) {
    return sdk::float_to_bf16(value);
  } else {
    return sdk::float_to_half(value);
  }
}

// Element i alone: scalar loads and stores.
template <ParamDtype Type>
__device__ void update_one(const StepScalars& s, const TensorRefs& t, uint64_t i) {
  float* weights = Type == ParamDtype::f32 ? static_cast<float*>(t.param) : t.master;
  float grad;
  if constexpr (Type == ParamDtype::f32) {
    grad = static_cast<const float*>(t.grad)[i];
  } else {
    grad = widen<Type>(static_cast<const uint16_t*>(t.grad)[i]);
  }
  const Element e = updated(s, Element{grad, weights[i], t.exp_avg[i], t.exp_avg_sq[i]});
  t.exp_avg[i] = e.exp_avg;
  t.exp_avg_sq[i] = e.exp_avg_sq;
  weights[i] = e.weight;
  if constexpr (Type != ParamDtype::f32) static_cast<uint16_t*>(t.param)[i] = narrow<Type>(e.weight);
}

// Elements i .. i+3 (i a multiple of 4, buffers aligned): one 16-byte access per fp32 array
// and one 8-byte access per 16-bit array.
template <ParamDtype Type>
__device__ void update_four(const StepScalars& s, const TensorRefs& t, uint64_t i) {
  float4* weights =
      reinterpret_cast<float4*>(Type == ParamDtype::f32 ? static_cast<float*>(t.param) : t.master);
  float4* exp_avg = reinterpret_cast<float4*>(t.exp_avg);
  float4* exp_avg_sq = reinterpret_cast<float4*>(t.exp_avg_sq);
  const uint64_t q = i / kVector;
  float grad[kVector];
  if constexpr (Type == ParamDtype::f32) {
    const float4 g = static_cast<const float4*>(t.grad)[q];
    grad[0] = g.x, grad[1] = g.y, grad[2] = g.z, grad[3] = g.w;
  } else {
    const ushort4 g = static_cast<const ushort4*>(t.grad)[q];
    grad[0] = widen<Type>(g.x), grad[1] = widen<Type>(g.y);
    grad[2] = widen<Type>(g.z), grad[3] = widen<Type>(g.w);
  }
  const float4 w = weights[q], m = exp_avg[q], v = exp_avg_sq[q];
  const Element e0 = updated(s, Element{grad[0], w.x, m.x, v.x});
  const Element e1 = updated(s, Element{grad[1], w.y, m.y, v.y});
  const Element e2 = updated(s, Element{grad[2], w.z, m.z, v.z});
  const Element e3 = updated(s, Element{grad[3], w.w, m.w, v.w});
  exp_avg[q] = make_float4(e0.exp_avg, e1.exp_avg, e2.exp_avg, e3.exp_avg);
  exp_avg_sq[q] = make_float4(e0.exp_avg_sq, e1.exp_avg_sq, e2.exp_avg_sq, e3.exp_avg_sq);
  weights[q] = make_float4(e0.weight, e1.weight, e2.weight, e3.weight);
  if constexpr (Type != ParamDtype::f32) {
    static_cast<ushort4*>(t.param)[q] = make_ushort4(narrow<Type>(e0.weight), narrow<Type>(e1.weight),
                                                     narrow<Type>(e2.weight), narrow<Type>(e3.weight));
  }
}

// Block b takes tiles b, b + gridDim.x, …; tile j of tensor k covers elements
// [(j - tile_begin[k]) * kTileElements, + kTileElements) ∩ [0, numel[k]), thread x the
// four elements from x * 4 within it.
template <ParamDtype Type>
__global__ void __launch_bounds__(kThreadsPerBlock)
    adamw_multi_tensor(LaunchBatch batch, StepScalars scalars) {
  uint32_t k = 0;
  for (uint64_t tile = blockIdx.x; tile < batch.tile_begin[batch.count]; tile += gridDim.x) {
    while (tile >= batch.tile_begin[k + 1]) ++k;  // tiles ascend, so k only moves forward
    const TensorRefs refs = batch.tensors[k];
    const uint64_t end = batch.numel[k];
    const uint64_t i = (tile - batch.tile_begin[k]) * kTileElements + threadIdx.x * kVector;
    if (i >= end) continue;
    if (((batch.vectorized >> k) & 1) != 0 && i + kVector <= end) {
      update_four<Type>(scalars, refs, i);
    } else {
      for (uint64_t e = i; e < min(i + kVector, end); ++e) update_one<Type>(scalars, refs, e);
    }
  }
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("AdamW CUDA ") + what + ": " +
                             cudaGetErrorString(status));
  }
}

bool aligned(const void* pointer, uintptr_t bytes) {
  return reinterpret_cast<uintptr_t>(pointer) % bytes == 0;
}

// Whether every buffer of `refs` allows the four-element accesses of update_four.
bool vectorizable(ParamDtype type, const TensorRefs& refs) {
  const uintptr_t narrow_bytes = kVector * param_bytes(type);  // 16 for fp32, 8 for bf16/f16
  return aligned(refs.param, narrow_bytes) && aligned(refs.grad, narrow_bytes) &&
         aligned(refs.master, 16) && aligned(refs.exp_avg, 16) && aligned(refs.exp_avg_sq, 16);
}

// Blocks that fill the current device once: SMs x resident blocks per SM of the kernel.
template <ParamDtype Type>
uint64_t resident_blocks() {
  int device = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, adamw_multi_tensor<Type>,
                                                      kThreadsPerBlock, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<uint64_t>(std::max(sms, 1)) * static_cast<uint64_t>(std::max(per_sm, 1));
}

template <ParamDtype Type>
void launch_typed(const StepScalars& scalars, const DeviceTensor* tensors, size_t count,
                  cudaStream_t stream) {
  const uint64_t max_blocks = resident_blocks<Type>();
  LaunchBatch batch{};
  const auto flush = [&] {
    const uint64_t tiles = batch.tile_begin[batch.count];
    if (tiles == 0) return;
    adamw_multi_tensor<Type><<<static_cast<unsigned>(std::min(tiles, max_blocks)),
                               kThreadsPerBlock, 0, stream>>>(batch, scalars);
    check(cudaGetLastError(), "launch");
    batch = LaunchBatch{};
  };
  for (size_t t = 0; t < count; ++t) {
    if (tensors[t].numel == 0) continue;
    if (batch.count == kMaxTensorsPerLaunch) flush();
    const uint32_t k = batch.count++;
    batch.tensors[k] = tensors[t].refs;
    batch.numel[k] = tensors[t].numel;
    // tiles of tensor k: ceil(numel / kTileElements)
    batch.tile_begin[k + 1] =
        batch.tile_begin[k] + (tensors[t].numel + kTileElements - 1) / kTileElements;
    if (vectorizable(Type, tensors[t].refs)) batch.vectorized |= uint64_t{1} << k;
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
  const bool present = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  if (!present) cudaGetLastError();  // "no device" is an answer, not an error to carry on
  return present;
}

DeviceScope::DeviceScope(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ == device) return;
  check(cudaSetDevice(device), "cudaSetDevice");
  restore_ = true;
}

DeviceScope::~DeviceScope() {
  if (restore_) cudaSetDevice(previous_);
}

}  // namespace dopant::adamw_kernels::cuda
