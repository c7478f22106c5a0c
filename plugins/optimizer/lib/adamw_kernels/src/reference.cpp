// The reference AdamW update: one element at a time, each operation written out in the
// order torch.optim.AdamW 1.13 applies it (see kernels.hpp). This is the spec every other
// variant is tested against bit for bit; it is written to be read, not to be fast.
#include <dopant/sdk/float16.hpp>

#include <cmath>

#include "variant_kernels.hpp"

namespace dopant::adamw_kernels::detail {
namespace {

float load_as_float(ParamDtype type, const void* data, size_t i) {
  switch (type) {
    case ParamDtype::f32: return static_cast<const float*>(data)[i];
    case ParamDtype::bf16: return sdk::bf16_to_float(static_cast<const uint16_t*>(data)[i]);
    case ParamDtype::f16: return sdk::half_to_float(static_cast<const uint16_t*>(data)[i]);
  }
  return 0.0f;
}

void store_from_float(ParamDtype type, void* data, size_t i, float value) {
  switch (type) {
    case ParamDtype::f32: static_cast<float*>(data)[i] = value; return;
    case ParamDtype::bf16: static_cast<uint16_t*>(data)[i] = sdk::float_to_bf16(value); return;
    case ParamDtype::f16: static_cast<uint16_t*>(data)[i] = sdk::float_to_half(value); return;
  }
}

void update_element(const StepScalars& s, float grad, float& param, float& exp_avg,
                    float& exp_avg_sq) {
  const float g = grad * s.inv_grad_scale;
  const float decayed = param * s.decay;                               // param.mul_
  exp_avg = std::fma(g, s.one_minus_beta1, exp_avg * s.beta1);         // mul_, add_(alpha)
  exp_avg_sq = std::fma(s.one_minus_beta2 * g, g, exp_avg_sq * s.beta2);  // mul_, addcmul_
  const float denom = std::sqrt(exp_avg_sq) / s.bias_correction2_sqrt + s.eps;
  param = decayed + (s.neg_step_size * exp_avg) / denom;               // addcdiv_
}

void step(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor, size_t begin,
          size_t end) {
  for (size_t i = begin; i < end; ++i) {
    float weight = type == ParamDtype::f32 ? static_cast<float*>(tensor.param)[i]
                                          : tensor.master[i];
    update_element(scalars, load_as_float(type, tensor.grad, i), weight, tensor.exp_avg[i],
                   tensor.exp_avg_sq[i]);
    if (type != ParamDtype::f32) tensor.master[i] = weight;
    store_from_float(type, tensor.param, i, weight);
  }
}

void widen(ParamDtype type, const void* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = load_as_float(type, src, i);
}

void narrow(ParamDtype type, const float* src, void* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) store_from_float(type, dst, i, src[i]);
}

}  // namespace

const VariantKernels reference_kernels = {step, widen, narrow};

}  // namespace dopant::adamw_kernels::detail
