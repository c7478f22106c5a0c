// The AVX-512 variant (F, BW, VL): 16 elements per iteration, the reference's operations as
// explicit intrinsics in the reference's order (built with -ffp-contract=off, so only the two
// fused multiply-adds the reference has are fused). The tail uses masked loads and stores,
// so every element takes the same vector path.
// GCC 12 reports the deliberately undefined source operands of its own AVX-512 intrinsics
// (_mm512_undefined_ps) as maybe-uninitialized once inlined (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>

// For its NaN constants only: calling the SDK's inline conversions here would compile them
// with this file's -m flags, and the linker could hand that copy to code for any CPU.
#include <dopant/sdk/float16.hpp>

#include "variant_kernels.hpp"

namespace dopant::adamw_kernels::detail {
namespace {

constexpr size_t kLanes = 16;

// The first `count` lanes (count <= 16).
__mmask16 first_lanes(size_t count) {
  return static_cast<__mmask16>((uint32_t{1} << count) - 1u);
}

struct Scalars {
  __m512 decay, beta1, one_minus_beta1, beta2, one_minus_beta2, bias_correction2_sqrt, eps,
      neg_step_size, inv_grad_scale;
  explicit Scalars(const StepScalars& s)
      : decay(_mm512_set1_ps(s.decay)),
        beta1(_mm512_set1_ps(s.beta1)),
        one_minus_beta1(_mm512_set1_ps(s.one_minus_beta1)),
        beta2(_mm512_set1_ps(s.beta2)),
        one_minus_beta2(_mm512_set1_ps(s.one_minus_beta2)),
        bias_correction2_sqrt(_mm512_set1_ps(s.bias_correction2_sqrt)),
        eps(_mm512_set1_ps(s.eps)),
        neg_step_size(_mm512_set1_ps(s.neg_step_size)),
        inv_grad_scale(_mm512_set1_ps(s.inv_grad_scale)) {}
};

// Full blocks use plain loads and stores (masked stores are slow on some CPUs, AMD Zen 4
// among them); only the tail is masked.
constexpr __mmask16 kAllLanes = 0xffff;

__m512 load_f32(const float* src, __mmask16 lanes) {
  return lanes == kAllLanes ? _mm512_loadu_ps(src) : _mm512_maskz_loadu_ps(lanes, src);
}
void store_f32(float* dst, __m512 value, __mmask16 lanes) {
  if (lanes == kAllLanes) {
    _mm512_storeu_ps(dst, value);
  } else {
    _mm512_mask_storeu_ps(dst, lanes, value);
  }
}

__m256i load_u16(const uint16_t* src, __mmask16 lanes) {
  return lanes == kAllLanes ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))
                            : _mm256_maskz_loadu_epi16(lanes, src);
}
void store_u16(uint16_t* dst, __m256i value, __mmask16 lanes) {
  if (lanes == kAllLanes) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), value);
  } else {
    _mm256_mask_storeu_epi16(dst, lanes, value);
  }
}

// [16] bf16 <-> fp32. Narrowing adds 0x7fff plus the lowest kept bit (ties to even); every
// NaN becomes sdk::kBf16NaN, as sdk::float_to_bf16 (and PyTorch's c10::BFloat16) does. (VCVTNEPS2BF16 is not used: it flushes
// subnormals to zero.)
__m512 widen_bf16(const uint16_t* src, __mmask16 lanes) {
  const __m512i wide = _mm512_cvtepu16_epi32(load_u16(src, lanes));
  return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
}

void narrow_bf16(uint16_t* dst, __m512 value, __mmask16 lanes) {
  const __m512i bits = _mm512_castps_si512(value);
  const __m512i high = _mm512_srli_epi32(bits, 16);
  const __m512i bias = _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                                        _mm512_and_si512(high, _mm512_set1_epi32(1)));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, bias), 16);
  const __mmask16 is_nan = _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q);
  const __m512i result = _mm512_mask_mov_epi32(rounded, is_nan, _mm512_set1_epi32(sdk::kBf16NaN));
  store_u16(dst, _mm512_cvtepi32_epi16(result), lanes);
}

// [16] f16 <-> fp32, rounding to nearest even with subnormals handled exactly. The
// conversion keeps a NaN's top payload bits; narrowing first turns each NaN into the float
// quiet NaN of its sign, which narrows to sign | sdk::kHalfQuietNaN (sdk::float_to_half's).
__m512 widen_f16(const uint16_t* src, __mmask16 lanes) {
  return _mm512_cvtph_ps(load_u16(src, lanes));
}

void narrow_f16(uint16_t* dst, __m512 value, __mmask16 lanes) {
  const __m512i bits = _mm512_castps_si512(value);
  const __m512i quiet_nan = _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(INT32_MIN)),
                                            _mm512_set1_epi32(0x7fc00000));
  const __mmask16 is_nan = _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q);
  const __m512 canonical = _mm512_castsi512_ps(_mm512_mask_mov_epi32(bits, is_nan, quiet_nan));
  store_u16(dst, _mm512_cvtps_ph(canonical, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), lanes);
}

template <ParamDtype Type>
struct Format;
template <>
struct Format<ParamDtype::f32> {
  using Element = float;
  static __m512 load(const float* src, __mmask16 lanes) { return load_f32(src, lanes); }
  static void store(float* dst, __m512 value, __mmask16 lanes) { store_f32(dst, value, lanes); }
};
template <>
struct Format<ParamDtype::bf16> {
  using Element = uint16_t;
  static __m512 load(const uint16_t* src, __mmask16 lanes) { return widen_bf16(src, lanes); }
  static void store(uint16_t* dst, __m512 value, __mmask16 lanes) {
    narrow_bf16(dst, value, lanes);
  }
};
template <>
struct Format<ParamDtype::f16> {
  using Element = uint16_t;
  static __m512 load(const uint16_t* src, __mmask16 lanes) { return widen_f16(src, lanes); }
  static void store(uint16_t* dst, __m512 value, __mmask16 lanes) {
    narrow_f16(dst, value, lanes);
  }
};

// Pointers to up to 16 consecutive elements of one tensor. For f32, `weights` aliases `param`.
template <typename Element>
struct Block {
  Element* param;
  const Element* grad;
  float* weights;
  float* exp_avg;
  float* exp_avg_sq;
};

template <ParamDtype Type>
void update_block(const Scalars& s, const Block<typename Format<Type>::Element>& b,
                  __mmask16 lanes) {
  const __m512 g = _mm512_mul_ps(Format<Type>::load(b.grad, lanes), s.inv_grad_scale);
  const __m512 decayed = _mm512_mul_ps(load_f32(b.weights, lanes), s.decay);
  const __m512 m = _mm512_fmadd_ps(g, s.one_minus_beta1,
                                   _mm512_mul_ps(load_f32(b.exp_avg, lanes), s.beta1));
  const __m512 v = _mm512_fmadd_ps(_mm512_mul_ps(s.one_minus_beta2, g), g,
                                   _mm512_mul_ps(load_f32(b.exp_avg_sq, lanes), s.beta2));
  const __m512 denom =
      _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(v), s.bias_correction2_sqrt), s.eps);
  const __m512 weight =
      _mm512_add_ps(decayed, _mm512_div_ps(_mm512_mul_ps(s.neg_step_size, m), denom));
  store_f32(b.exp_avg, m, lanes);
  store_f32(b.exp_avg_sq, v, lanes);
  store_f32(b.weights, weight, lanes);
  if constexpr (Type != ParamDtype::f32) Format<Type>::store(b.param, weight, lanes);
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
  for (size_t i = 0; i < n; i += kLanes) {
    const __mmask16 lanes = n - i >= kLanes ? kAllLanes : first_lanes(n - i);
    update_block<Type>(s, {param + i, grad + i, weights + i, exp_avg + i, exp_avg_sq + i},
                       lanes);
  }
}

void step(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor, size_t begin,
          size_t end) {
  visit_param_type(type, [&]<ParamDtype T>() { step_typed<T>(scalars, tensor, begin, end); });
}

template <ParamDtype Type>
void widen_typed(const void* src, float* dst, size_t n) {
  const auto* in = static_cast<const typename Format<Type>::Element*>(src);
  for (size_t i = 0; i < n; i += kLanes) {
    const __mmask16 lanes = n - i >= kLanes ? kAllLanes : first_lanes(n - i);
    store_f32(dst + i, Format<Type>::load(in + i, lanes), lanes);
  }
}

template <ParamDtype Type>
void narrow_typed(const float* src, void* dst, size_t n) {
  auto* out = static_cast<typename Format<Type>::Element*>(dst);
  for (size_t i = 0; i < n; i += kLanes) {
    const __mmask16 lanes = n - i >= kLanes ? kAllLanes : first_lanes(n - i);
    Format<Type>::store(out + i, load_f32(src + i, lanes), lanes);
  }
}

void widen(ParamDtype type, const void* src, float* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { widen_typed<T>(src, dst, n); });
}

void narrow(ParamDtype type, const float* src, void* dst, size_t n) {
  visit_param_type(type, [&]<ParamDtype T>() { narrow_typed<T>(src, dst, n); });
}

}  // namespace

const VariantKernels avx512_kernels = {step, widen, narrow};

}  // namespace dopant::adamw_kernels::detail
