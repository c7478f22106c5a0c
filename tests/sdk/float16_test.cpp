// bf16 and fp16 conversions against plain references: the compiler's _Float16 for fp16, and
// for bf16 a nearest-of-two-candidates search in double with ties to even. Covers exact
// halfway points, NaN, infinities, overflow and subnormals.
#include <dopant/sdk/float16.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace sdk = dopant::sdk;

namespace {

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint16_t half_bits(_Float16 value) { return std::bit_cast<uint16_t>(value); }

// Value of a bf16 pattern in double, with the infinity pattern standing for 2^128 (where
// rounding puts it) so that distances to it are finite.
double bf16_value(uint16_t bits) {
  if ((bits & 0x7fff) == 0x7f80) return std::copysign(std::ldexp(1.0, 128), (bits & 0x8000) ? -1.0 : 1.0);
  return sdk::bf16_to_float(bits);
}

// Reference float -> bf16 for finite inputs: the nearer of the two patterns around x.
uint16_t reference_bf16(float x) {
  const auto bits = std::bit_cast<uint32_t>(x);
  const auto below = static_cast<uint16_t>(bits >> 16);  // truncated toward zero
  const auto above = static_cast<uint16_t>(below + 1);    // next away from zero
  const double distance_below = std::fabs(static_cast<double>(x) - bf16_value(below));
  const double distance_above = std::fabs(static_cast<double>(x) - bf16_value(above));
  if (distance_below < distance_above) return below;
  if (distance_above < distance_below) return above;
  return (below & 1) == 0 ? below : above;
}

// Finite floats spread over every exponent, plus every exact bf16/fp16 halfway point.
std::vector<float> sample_floats() {
  std::vector<float> values;
  for (uint64_t bits = 0; bits < 0x7f800000u; bits += 40503) {
    values.push_back(from_bits(static_cast<uint32_t>(bits)));
    values.push_back(-from_bits(static_cast<uint32_t>(bits)));
  }
  for (uint32_t b = 0; b < 0x7f80; ++b) values.push_back(from_bits((b << 16) | 0x8000u));
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float low = static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(h)));
    const float high = static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(h + 1)));
    values.push_back(low + (high - low) / 2);  // exact in float
  }
  return values;
}

TEST(SdkFloat16, Bf16MatchesNearestEvenReference) {
  for (float x : sample_floats()) {
    ASSERT_EQ(sdk::float_to_bf16(x), reference_bf16(x)) << "x = " << x;
  }
}

TEST(SdkFloat16, Bf16DecodesEveryFinitePatternExactly) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    if ((bits & 0x7f80) == 0x7f80) continue;  // inf and NaN below
    ASSERT_EQ(sdk::float_to_bf16(sdk::bf16_to_float(bits)), bits) << std::hex << b;
  }
}

TEST(SdkFloat16, Bf16SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(sdk::float_to_bf16(inf), 0x7f80);
  EXPECT_EQ(sdk::float_to_bf16(-inf), 0xff80);
  EXPECT_EQ(sdk::float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // overflow
  EXPECT_TRUE(std::isnan(sdk::bf16_to_float(sdk::float_to_bf16(std::nanf("")))));
  EXPECT_TRUE(std::isnan(sdk::bf16_to_float(sdk::float_to_bf16(from_bits(0x7f800001u)))))
      << "a NaN whose payload lies in the dropped bits must not become infinity";
  EXPECT_EQ(sdk::float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(sdk::float_to_bf16(from_bits(1)), 0x0000);  // smallest subnormal rounds to zero
  EXPECT_EQ(sdk::float_to_bf16(from_bits(0x00018000u)), 0x0002);  // subnormal tie, to even
}

TEST(SdkFloat16, HalfMatchesCompilerFloat16) {
  for (float x : sample_floats()) {
    ASSERT_EQ(sdk::float_to_half(x), half_bits(static_cast<_Float16>(x))) << "x = " << x;
  }
}

TEST(SdkFloat16, HalfDecodesEveryPatternLikeCompilerFloat16) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float expected = static_cast<float>(std::bit_cast<_Float16>(bits));
    const float got = sdk::half_to_float(bits);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(expected)) << std::hex << h;
    }
  }
}

TEST(SdkFloat16, HalfSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(sdk::float_to_half(inf), 0x7c00);
  EXPECT_EQ(sdk::float_to_half(-inf), 0xfc00);
  EXPECT_EQ(sdk::float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(sdk::float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(sdk::float_to_half(65520.0f), 0x7c00);  // halfway to 65536 rounds to even: inf
  EXPECT_TRUE(std::isnan(sdk::half_to_float(sdk::float_to_half(from_bits(0xff800001u)))));
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // its half: tie to even
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.5f, -24)), 0x0002);  // 1.5 units: tie to even 2
  EXPECT_EQ(sdk::float_to_half(-std::ldexp(1.0f, -14)), 0x8400);  // smallest normal
  EXPECT_FLOAT_EQ(sdk::half_to_float(0x0001), std::ldexp(1.0f, -24));
}

}  // namespace
