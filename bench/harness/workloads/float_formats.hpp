// Conversions between fp32 and the 16-bit formats a workload may store parameters in:
// bf16 (truncated fp32 exponent range) and IEEE fp16, both rounding to nearest even.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace dopant::workloads {

inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline float bf16_to_float(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

inline uint16_t float_to_fp16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (magnitude >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65536: inf
  const int32_t exponent = static_cast<int32_t>(magnitude >> 23) - 127 + 15;
  uint32_t mantissa = (magnitude & 0x007fffffu) | 0x00800000u;  // implicit 1 made explicit
  int32_t shift = 13;                                              // 24 -> 11 bits
  uint32_t biased = static_cast<uint32_t>(exponent);
  if (exponent <= 0) {  // subnormal (or zero) in fp16
    shift = 14 - exponent;
    if (shift > 24) return sign;
    biased = 0;
  }
  const uint32_t halfway = 1u << (shift - 1);
  const uint32_t remainder = mantissa & ((1u << shift) - 1u);
  uint32_t result = mantissa >> shift;
  if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
  // For normal numbers the explicit 1 lands in bit 10 and adds one to the exponent field;
  // a carry out of the mantissa rounds up into the next exponent naturally.
  const uint32_t encoded = exponent <= 0 ? result : ((biased - 1u) << 10) + result;
  return static_cast<uint16_t>(sign | encoded);
}

inline float fp16_to_float(uint16_t value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  const uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace dopant::workloads
