// The AdamW element update shared by the `adamw` and `adamw-chunked-offload` plugins.
//
// One update is exactly torch.optim.AdamW 1.13 (foreach=False) on a CPU with the AVX2
// kernels PyTorch picks by default; per element, in fp32, with the fp32 scalars of
// StepScalars (see step_scalars.hpp):
//   g  = grad * inv_grad_scale
//   p  = p * decay                                  param.mul_(1 - lr*wd)
//   m  = fma(g, one_minus_beta1, m * beta1)          exp_avg.mul_(b1).add_(g, alpha=1-b1)
//   v  = fma(one_minus_beta2 * g, g, v * beta2)      exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
//   d  = sqrt(v) / bias_correction2_sqrt + eps       (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
//   p  = p + (neg_step_size * m) / d                 param.addcdiv_(m, d, value=-step_size)
// Every variant (reference, scalar, AVX2, AVX-512, CUDA) gives the same bits as the
// reference, for any range split, so callers may cut [0, n) anywhere across threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "step_scalars.hpp"

namespace dopant::adamw_kernels {

// How parameters and gradients are stored. bf16 and f16 parameters have fp32 master weights.
enum class ParamDtype : uint8_t { f32, bf16, f16 };

// Buffers of one tensor, or of one chunk of it; every pointer indexes the same elements.
struct TensorRefs {
  void* param;        // [n] ParamDtype; f32: the weights, updated in place;
                      //     bf16/f16: written as round-to-nearest-even of the master
  const void* grad;   // [n] ParamDtype, read only
  float* master;      // [n] fp32 master weights for bf16/f16; must be nullptr for f32
  float* exp_avg;     // [n] fp32 first moment
  float* exp_avg_sq;  // [n] fp32 second moment
};

// Implementations of the same update; all give the reference's bits.
enum class Variant : uint8_t { reference, scalar, avx2, avx512 };

// Updates elements [begin, end) of `tensor` with `variant`, which must be supported.
void step_range(Variant variant, ParamDtype type, const StepScalars& scalars,
                const TensorRefs& tensor, size_t begin, size_t end);
// The same with active_variant().
void step_range(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor,
                size_t begin, size_t end);

// Widens [n] bf16/f16 values to fp32 (exact); for f32 it copies.
void widen_to_float(Variant variant, ParamDtype type, const void* src, float* dst, size_t n);
// Narrows [n] fp32 values to bf16/f16, rounding to nearest even; for f32 it copies.
void narrow_from_float(Variant variant, ParamDtype type, const float* src, void* dst, size_t n);

// Whether this CPU runs `variant` (reference and scalar: always).
bool variant_supported(Variant variant);
// The fastest supported variant, or the one named by the environment variable
// DOPANT_ADAMW_KERNEL (reference, scalar, avx2, avx512) when it is set. Read once; an
// unknown or unsupported name is ignored with a warning on stderr.
Variant active_variant();

std::string_view variant_name(Variant variant);
std::optional<Variant> parse_variant(std::string_view name);

// Bytes of one element of `type`.
constexpr size_t param_bytes(ParamDtype type) { return type == ParamDtype::f32 ? 4 : 2; }

}  // namespace dopant::adamw_kernels
