// Scalar conversions between fp32 and the 16-bit parameter formats, on raw bit patterns.
// These are the reference the vectorized conversions of every kernel variant must match:
//   fp32 -> bf16/f16: round to nearest, ties to even; overflow becomes infinity; a NaN
//                     stays a NaN with its sign, quieted, keeping its top payload bits
//                     (what x86 F16C and CUDA's __float2half_rn do);
//   bf16/f16 -> fp32: exact; an f16 NaN is quieted (as F16C does), a bf16 NaN is not.
// They are constexpr so the CUDA kernel (built with --expt-relaxed-constexpr) runs these very
// functions on the device rather than the hardware conversions, whose NaNs differ.
#pragma once

#include <bit>
#include <cstdint>

namespace dopant::adamw_kernels {

constexpr float bf16_to_float(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

constexpr uint16_t float_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  const uint32_t rounding_bias = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding_bias) >> 16);
}

constexpr float f16_to_float(uint16_t value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  const uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1fu) {  // infinity, or NaN made quiet
    const uint32_t quiet = mantissa != 0 ? 0x00400000u : 0u;
    return std::bit_cast<float>(sign | 0x7f800000u | quiet | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in fp32
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

constexpr uint16_t float_to_f16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: quiet, top 10 payload bits kept
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (magnitude >= 0x38800000u) {  // normal in f16 (>= 2^-14): rebias, round off 13 bits
    const uint32_t rounding_bias = 0x0fffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((magnitude + rounding_bias - (112u << 23)) >> 13));
  }
  // Subnormal in f16: value * 2^24 = significand * 2^(exponent - 126), rounded to an integer
  // (1024 encodes the smallest normal, which is what rounding up into it means).
  const uint32_t exponent = magnitude >> 23;
  const uint32_t shift = 126u - exponent;  // >= 14
  if (shift > 24) return sign;             // below half of the smallest subnormal
  const uint32_t significand = (magnitude & 0x007fffffu) | 0x00800000u;
  const uint32_t halfway = 1u << (shift - 1);
  const uint32_t remainder = significand & ((1u << shift) - 1u);
  uint32_t result = significand >> shift;
  if (remainder > halfway || (remainder == halfway && (result & 1u) != 0)) ++result;
  return static_cast<uint16_t>(sign | result);
}

}  // namespace dopant::adamw_kernels
