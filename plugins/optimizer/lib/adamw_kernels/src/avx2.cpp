// The AVX2 + FMA + F16C variant: 8 elements per iteration, the reference's operations as
// explicit intrinsics in the reference's order (this file is built with -ffp-contract=off, so
// only the two fused multiply-adds the reference has are fused). A tail shorter than 8 goes
// through zero-padded stack buffers, so every element takes the same vector path.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

// For its NaN constants only: calling the SDK's inline conversions here would compile them
// with this file's -m flags, and the linker could hand that copy to code for any CPU.
#include <dopant/sdk/float16.hpp>

#include "variant_kernels.hpp"

namespace dopant::adamw_kernels::detail {
namespace {

constexpr size_t kLanes = 8;

// memcpy rather than std::copy_n: no shared template instance gets compiled for AVX2 here.
template <typename T>
void copy_elements(T* dst, const T* src, size_t count) {
  std::memcpy(dst, src, count * sizeof(T));
}

struct Scalars {
  __m256 decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bias_correction2_sqrt, eps,
      neg_step_size, inv_grad_scale;
  explicit Scalars(const StepScalars& s)
      : decay(_mm256_set1_ps(s.decay)),
        beta1(_mm256_set1_ps(s.beta1)),
        one_minus_beta1(_mm256_set1_ps(s.one_minus_beta1)),
        beta2(_mm256_set1_ps(s.beta2)),
        one_minus_beta2(_mm256_set1_ps(s.one_minus_beta2)),
        bias_correction2_sqrt(_mm256_set1_ps(s.bias_correction2_sqrt)),
        eps(_mm256_set1_ps(s.eps)),
        neg_step_size(_mm256_set1_ps(s.neg_step_size)),
        inv_grad_scale(_mm256_set1_ps(s.inv_grad_scale)) {}
};

// [8] bf16 <-> fp32. Narrowing adds 0x7fff plus the lowest kept bit (ties to even); every
// NaN becomes sdk::kBf16NaN, as sdk::float_to_bf16 (and PyTorch's c10::BFloat16) does.
__m256 widen_bf16(const uint16_t* src) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

void narrow_bf16(uint16_t* dst, __m256 value) {
  const __m256i bits = _mm256_castps_si256(value);
  const __m256i high = _mm256_srli_epi32(bits, 16);
  const __m256i bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                        _mm256_and_si256(high, _mm256_set1_epi32(1)));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
  const __m256i is_nan = _mm256_castps_si256(_mm256_cmp_ps(value, value, _CMP_UNORD_Q));
  const __m256i result = _mm256_blendv_epi8(rounded, _mm256_set1_epi32(sdk::kBf16NaN), is_nan);
  // packus works per 128-bit half: [r0..3 r0..3 | r4..7 r4..7]; keep quadwords 0 and 2.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(result, result), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(packed));
}

// [8] f16 <-> fp32 with F16C, which rounds to nearest even and handles subnormals exactly.
// F16C keeps a NaN's top payload bits; narrowing first turns each NaN into the float quiet
// NaN of its sign, which F16C narrows to sign | sdk::kHalfQuietNaN (sdk::float_to_half's).
__m256 widen_f16(const uint16_t* src) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
}

void narrow_f16(uint16_t* dst, __m256 value) {
  const __m256 sign = _mm256_and_ps(value, _mm256_set1_ps(-0.0f));
  const __m256 quiet_nan = _mm256_or_ps(sign, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
  const __m256 canonical =
      _mm256_blendv_ps(value, quiet_nan, _mm256_cmp_ps(value, value, _CMP_UNORD_Q));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                   _mm256_cvtps_ph(canonical, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

template <ParamDtype Type>
struct Format;
template <>
struct Format<ParamDtype::f32> {
  using Element = float;
  static __m256 load(const float* src) { return _mm256_loadu_ps(src); }
  static void store(float* dst, __m256 value) { _mm256_storeu_ps(dst, value); }
};
template <>
struct Format<ParamDtype::bf16> {
  using Element = uint16_t;
  static __m256 load(const uint16_t* src) { return widen_bf16(src); }
  static void store(uint16_t* dst, __m256 value) { narrow_bf16(dst, value); }
};
template <>
struct Format<ParamDtype::f16> {
  using Element = uint16_t;
  static __m256 load(const uint16_t* src) { return widen_f16(src); }
  static void store(uint16_t* dst, __m256 value) { narrow_f16(dst, value); }
};

// Pointers to 8 consecutive elements of one tensor. For f32, `weights` aliases `param`.
template <typename Element>
struct Block {
  Element* param;
  const Element* grad;
  float* weights;
  float* exp_avg;
  float* exp_avg_sq;
};

template <ParamDtype Type>
void update_block(const Scalars& s, const Block<typename Format<Type>::Element>& b) {
  const __m256 g = _mm256_mul_ps(Format<Type>::load(b.grad), s.inv_grad_scale);
  const __m256 decayed = _mm256_mul_ps(_mm256_loadu_ps(b.weights), s.decay);
  const __m256 m = _mm256_fmadd_ps(g, s.one_minus_beta1,
                                   _mm256_mul_ps(_mm256_loadu_ps(b.exp_avg), s.beta1));
  const __m256 v = _mm256_fmadd_ps(_mm256_mul_ps(s.one_minus_beta2, g), g,
                                   _mm256_mul_ps(_mm256_loadu_ps(b.exp_avg_sq), s.beta2));
  const __m256 denom =
      _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(v), s.bias_correction2_sqrt), s.eps);
  const __m256 weight =
      _mm256_add_ps(decayed, _mm256_div_ps(_mm256_mul_ps(s.neg_step_size, m), denom));
  _mm256_storeu_ps(b.exp_avg, m);
  _mm256_storeu_ps(b.exp_avg_sq, v);
  _mm256_storeu_ps(b.weights, weight);
  if constexpr (Type != ParamDtype::f32) Format<Type>::store(b.param, weight);
}

template <ParamDtype Type>
void step_typed(const StepScalars& scalars, const TensorRefs& tensor, size_t begin,
                size_t end) {
  using Element = typename Format<Type>::Element;
  const Scalars s(scalars);
  Element* param = static_cast<Element*>(tensor.param) + begin;
  const Element* grad = static_cast<const Element*>(tensor.grad) + begin;
  float* weights = tensor.master + begin;
  if constexpr (Type == ParamDtype::f32) weights = param;
  float* exp_avg = tensor.exp_avg + begin;
  float* exp_avg_sq = tensor.exp_avg_sq + begin;
  const size_t n = end - begin;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    update_block<Type>(s, {param + i, grad + i, weights + i, exp_avg + i, exp_avg_sq + i});
  }
  const size_t rest = n - i;
  if (rest == 0) return;
  Element param_tail[kLanes] = {};
  Element grad_tail[kLanes] = {};
  float master_tail[kLanes] = {};
  float exp_avg_tail[kLanes] = {};
  float exp_avg_sq_tail[kLanes] = {};
  float* weights_tail = master_tail;
  if constexpr (Type == ParamDtype::f32) weights_tail = param_tail;
  copy_elements(grad_tail, grad + i, rest);
  copy_elements(weights_tail, weights + i, rest);
  copy_elements(exp_avg_tail, exp_avg + i, rest);
  copy_elements(exp_avg_sq_tail, exp_avg_sq + i, rest);
  update_block<Type>(s, {param_tail, grad_tail, weights_tail, exp_avg_tail, exp_avg_sq_tail});
  copy_elements(weights + i, weights_tail, rest);
  copy_elements(exp_avg + i, exp_avg_tail, rest);
  copy_elements(exp_avg_sq + i, exp_avg_sq_tail, rest);
  if constexpr (Type != ParamDtype::f32) copy_elements(param + i, param_tail, rest);
}

void step(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor, size_t begin,
          size_t end) {
  visit_param_type(type, [&]<ParamDtype T>() { step_typed<T>(scalars, tensor, begin, end); });
}

template <ParamDtype Type>
void widen_typed(const void* src, float* dst, size_t n) {
  using Element = typename Format<Type>::Element;
  const auto* in = static_cast<const Element*>(src);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) _mm256_storeu_ps(dst + i, Format<Type>::load(in + i));
  if (i == n) return;
  Element in_tail[kLanes] = {};
  float out_tail[kLanes];
  copy_elements(in_tail, in + i, n - i);
  _mm256_storeu_ps(out_tail, Format<Type>::load(in_tail));
  copy_elements(dst + i, out_tail, n - i);
}

template <ParamDtype Type>
void narrow_typed(const float* src, void* dst, size_t n) {
  using Element = typename Format<Type>::Element;
  auto* out = static_cast<Element*>(dst);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) Format<Type>::store(out + i, _mm256_loadu_ps(src + i));
  if (i == n) return;
  float in_tail[kLanes] = {};
  Element out_tail[kLanes];
  copy_elements(in_tail, src + i, n - i);
  Format<Type>::store(out_tail, _mm256_loadu_ps(in_tail));
  copy_elements(out + i, out_tail, n - i);
}

void widen(ParamDtype type, const void* src, float* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { widen_typed<T>(src, dst, n); });
}

void narrow(ParamDtype type, const float* src, void* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { narrow_typed<T>(src, dst, n); });
}

}  // namespace

const VariantKernels avx2_kernels = {step, widen, narrow};

}  // namespace dopant::adamw_kernels::detail
