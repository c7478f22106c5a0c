// dopant SDK — the one bfloat16 and IEEE half conversion on raw 16-bit patterns, for plugins
// (host and, compiled by nvcc, CUDA device code), kernels, workloads and tests alike. The
// rules are PyTorch's (c10::BFloat16 and c10::Half):
//   float -> bf16 / half: round to nearest, ties to even; overflow becomes infinity; half
//                         subnormals are produced exactly;
//                         a NaN becomes bf16 0x7fc0 (quiet, positive, as c10::BFloat16's
//                         round_to_nearest_even), or half sign|0x7e00 (quiet, sign kept, as
//                         c10::Half's fp16_ieee_from_fp32_value);
//   bf16 / half -> float: exact; a half NaN is made quiet (as c10::Half and x86 F16C do), a
//                         bf16 NaN keeps its bits (as c10::BFloat16 does).
// Header-only, C++17.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define DOPANT_SDK_HOST_DEVICE __host__ __device__
#else
#define DOPANT_SDK_HOST_DEVICE
#endif

namespace dopant::sdk {

namespace detail {
DOPANT_SDK_HOST_DEVICE inline uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}
DOPANT_SDK_HOST_DEVICE inline float bits_float(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}
}  // namespace detail

inline constexpr uint16_t kBf16NaN = 0x7fc0;     // what every NaN becomes in bf16
inline constexpr uint16_t kHalfQuietNaN = 0x7e00;  // with the sign of the NaN, in half

DOPANT_SDK_HOST_DEVICE inline float bf16_to_float(uint16_t value) {
  return detail::bits_float(static_cast<uint32_t>(value) << 16);
}

DOPANT_SDK_HOST_DEVICE inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = detail::float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return kBf16NaN;
  const uint32_t rounding_bias = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding_bias) >> 16);
}

DOPANT_SDK_HOST_DEVICE inline float half_to_float(uint16_t value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  const uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1fu) {  // infinity, or NaN made quiet
    const uint32_t quiet = mantissa != 0 ? 0x00400000u : 0u;
    return detail::bits_float(sign | 0x7f800000u | quiet | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return detail::bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

DOPANT_SDK_HOST_DEVICE inline uint16_t float_to_half(float value) {
  const uint32_t bits = detail::float_bits(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | kHalfQuietNaN);
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (magnitude >= 0x38800000u) {  // normal half (>= 2^-14): rebias by 127 - 15, round off 13 bits
    const uint32_t rounding_bias = 0x0fffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((magnitude + rounding_bias - (112u << 23)) >> 13));
  }
  // Subnormal half: value * 2^24 = significand * 2^(exponent - 126), rounded to an integer
  // (1024 encodes the smallest normal, which is what rounding up into it means).
  const uint32_t exponent = magnitude >> 23;
  const uint32_t shift = 126u - exponent;  // >= 14
  if (shift > 24) return sign;             // below half of the smallest subnormal
  const uint32_t significand = (magnitude & 0x007fffffu) | 0x00800000u;
  const uint32_t halfway = 1u << (shift - 1);
  const uint32_t remainder = significand & ((1u << shift) - 1u);
  uint32_t units = significand >> shift;
  if (remainder > halfway || (remainder == halfway && (units & 1u) != 0)) ++units;
  return static_cast<uint16_t>(sign | units);
}

}  // namespace dopant::sdk
