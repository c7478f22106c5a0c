// dopant SDK — bfloat16 and IEEE half conversions on raw 16-bit patterns. Float to 16-bit
// rounds to nearest, ties to even; NaN stays a (quiet) NaN with its sign, overflow becomes
// infinity, and half subnormals are produced and read exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace dopant::sdk {

namespace detail {
inline uint32_t float_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline float bits_float(uint32_t bits) {
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
}  // namespace detail

inline float bf16_to_float(uint16_t value) {
  return detail::bits_float(static_cast<uint32_t>(value) << 16);
}

inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = detail::float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep sign and top payload, set quiet bit
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  const uint32_t lowest_kept_bit = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lowest_kept_bit) >> 16);
}

inline float half_to_float(uint16_t value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1fu;
  const uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1f) return detail::bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return detail::bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t float_to_half(float value) {
  const uint32_t bits = detail::float_bits(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: quiet, keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (magnitude >= 0x38800000u) {  // normal half: rebias the exponent by 127 - 15
    const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal half (or zero): the result counts units of 2^-24.
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 102) return sign;  // below 2^-25: rounds to zero
  const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126 - exponent;  // 14 .. 24
  uint32_t units = significand >> shift;
  const uint32_t remainder = significand & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (units & 1u) != 0)) ++units;
  return static_cast<uint16_t>(sign | units);
}

}  // namespace dopant::sdk
