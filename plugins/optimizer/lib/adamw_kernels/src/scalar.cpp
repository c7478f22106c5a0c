// The portable fallback: a plain loop with the parameter format fixed at compile time and
// no aliasing, for CPUs without AVX2. Same operations, in the same order, as the reference.
#include <dopant/sdk/float16.hpp>

#include <cmath>
#include <cstdint>

#include "variant_kernels.hpp"

namespace dopant::adamw_kernels::detail {
namespace {

template <ParamDtype Type>
struct Format;
template <>
struct Format<ParamDtype::f32> {
  using Element = float;
  static float widen(float value) { return value; }
  static float narrow(float value) { return value; }
};
template <>
struct Format<ParamDtype::bf16> {
  using Element = uint16_t;
  static float widen(uint16_t value) { return sdk::bf16_to_float(value); }
  static uint16_t narrow(float value) { return sdk::float_to_bf16(value); }
};
template <>
struct Format<ParamDtype::f16> {
  using Element = uint16_t;
  static float widen(uint16_t value) { return sdk::half_to_float(value); }
  static uint16_t narrow(float value) { return sdk::float_to_half(value); }
};

template <ParamDtype Type>
void step_typed(const StepScalars& s, const TensorRefs& tensor, size_t begin, size_t end) {
  using F = Format<Type>;
  using Element = typename F::Element;
  Element* __restrict param = static_cast<Element*>(tensor.param);
  const Element* __restrict grad = static_cast<const Element*>(tensor.grad);
  float* __restrict exp_avg = tensor.exp_avg;
  float* __restrict exp_avg_sq = tensor.exp_avg_sq;
  float* weights = tensor.master;
  if constexpr (Type == ParamDtype::f32) weights = param;
  for (size_t i = begin; i < end; ++i) {
    const float g = F::widen(grad[i]) * s.inv_grad_scale;
    const float decayed = weights[i] * s.decay;
    const float m = std::fma(g, s.one_minus_beta1, exp_avg[i] * s.beta1);
    const float v = std::fma(s.one_minus_beta2 * g, g, exp_avg_sq[i] * s.beta2);
    const float denom = std::sqrt(v) / s.bias_correction2_sqrt + s.eps;
    const float weight = decayed + (s.neg_step_size * m) / denom;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    weights[i] = weight;
    if constexpr (Type != ParamDtype::f32) param[i] = F::narrow(weight);
  }
}

void step(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor, size_t begin,
          size_t end) {
  visit_param_type(type, [&]<ParamDtype T>() { step_typed<T>(scalars, tensor, begin, end); });
}

template <ParamDtype Type>
void widen_typed(const void* src, float* dst, size_t n) {
  const auto* in = static_cast<const typename Format<Type>::Element*>(src);
  for (size_t i = 0; i < n; ++i) dst[i] = Format<Type>::widen(in[i]);
}

template <ParamDtype Type>
void narrow_typed(const float* src, void* dst, size_t n) {
  auto* out = static_cast<typename Format<Type>::Element*>(dst);
  for (size_t i = 0; i < n; ++i) out[i] = Format<Type>::narrow(src[i]);
}

void widen(ParamDtype type, const void* src, float* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { widen_typed<T>(src, dst, n); });
}

void narrow(ParamDtype type, const float* src, void* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { narrow_typed<T>(src, dst, n); });
}

}  // namespace

const VariantKernels scalar_kernels = {step, widen, narrow};

}  // namespace dopant::adamw_kernels::detail
