// Run-time choice of the kernel variant: the fastest one this CPU supports, unless the
// environment variable DOPANT_ADAMW_KERNEL names another (tests, benchmarks, bisecting).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "variant_kernels.hpp"

namespace dopant::adamw_kernels {
namespace {

const detail::VariantKernels& kernels_of(Variant variant) {
  if (!variant_supported(variant)) {
    throw std::invalid_argument("AdamW kernel variant " + std::string(variant_name(variant)) +
                                " is not supported by this CPU");
  }
  switch (variant) {
    case Variant::reference: return detail::reference_kernels;
    case Variant::scalar: return detail::scalar_kernels;
    case Variant::avx2: return detail::avx2_kernels;
    case Variant::avx512: return detail::avx512_kernels;
  }
  throw std::invalid_argument("unknown AdamW kernel variant");
}

Variant fastest_supported() {
  if (variant_supported(Variant::avx512)) return Variant::avx512;
  if (variant_supported(Variant::avx2)) return Variant::avx2;
  return Variant::scalar;
}

Variant choose_variant() {
  const char* requested = std::getenv("DOPANT_ADAMW_KERNEL");
  if (requested == nullptr || *requested == '\0') return fastest_supported();
  const std::optional<Variant> parsed = parse_variant(requested);
  if (parsed && variant_supported(*parsed)) return *parsed;
  std::fprintf(stderr,
               "dopant: DOPANT_ADAMW_KERNEL=%s is not a variant this CPU runs "
               "(reference, scalar, avx2, avx512); using the fastest one\n",
               requested);
  return fastest_supported();
}

}  // namespace

bool variant_supported(Variant variant) {
  switch (variant) {
    case Variant::reference:
    case Variant::scalar: return true;
    case Variant::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Variant::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
  }
  return false;
}

Variant active_variant() {
  static const Variant chosen = choose_variant();
  return chosen;
}

std::string_view variant_name(Variant variant) {
  switch (variant) {
    case Variant::reference: return "reference";
    case Variant::scalar: return "scalar";
    case Variant::avx2: return "avx2";
    case Variant::avx512: return "avx512";
  }
  return "unknown";
}

std::optional<Variant> parse_variant(std::string_view name) {
  for (Variant variant : {Variant::reference, Variant::scalar, Variant::avx2, Variant::avx512}) {
    if (variant_name(variant) == name) return variant;
  }
  return std::nullopt;
}

void step_range(Variant variant, ParamDtype type, const StepScalars& scalars,
                const TensorRefs& tensor, size_t begin, size_t end) {
  if (begin >= end) return;
  if ((type == ParamDtype::f32) != (tensor.master == nullptr)) {
    throw std::invalid_argument(type == ParamDtype::f32
                                    ? "AdamW: fp32 parameters take no master weights"
                                    : "AdamW: bf16/f16 parameters need fp32 master weights");
  }
  kernels_of(variant).step(type, scalars, tensor, begin, end);
}

void step_range(ParamDtype type, const StepScalars& scalars, const TensorRefs& tensor,
                size_t begin, size_t end) {
  step_range(active_variant(), type, scalars, tensor, begin, end);
}

void widen_to_float(Variant variant, ParamDtype type, const void* src, float* dst, size_t n) {
  kernels_of(variant).widen(type, src, dst, n);
}

void narrow_from_float(Variant variant, ParamDtype type, const float* src, void* dst,
                       size_t n) {
  kernels_of(variant).narrow(type, src, dst, n);
}

}  // namespace dopant::adamw_kernels
