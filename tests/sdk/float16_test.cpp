// The one bf16 and fp16 conversion (dopant/sdk/float16.hpp) against plain references: the
// compiler's _Float16 for fp16, and for bf16 a nearest-of-two-candidates search in double with
// ties to even; known values at the rounding boundaries, round trips of every pattern, and
// PyTorch's NaN rules (c10::BFloat16, c10::Half). The kernels' vectorized conversions are
// checked against these in tests/optimizer/conversion_variants_test.cpp.
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
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // its half: tie to even
  EXPECT_EQ(sdk::float_to_half(std::ldexp(1.5f, -24)), 0x0002);  // 1.5 units: tie to even 2
  EXPECT_EQ(sdk::float_to_half(-std::ldexp(1.0f, -14)), 0x8400);  // smallest normal
  EXPECT_FLOAT_EQ(sdk::half_to_float(0x0001), std::ldexp(1.0f, -24));
}

TEST(SdkFloat16, KnownValuesAtTheRoundingBoundaries) {
  EXPECT_EQ(sdk::float_to_bf16(1.0f), 0x3f80u);
  EXPECT_EQ(sdk::float_to_bf16(from_bits(0x3f808000u)), 0x3f80u);  // tie, even stays
  EXPECT_EQ(sdk::float_to_bf16(from_bits(0x3f818000u)), 0x3f82u);  // tie, odd rounds up
  EXPECT_EQ(sdk::float_to_bf16(from_bits(0x3f808001u)), 0x3f81u);  // above the tie
  EXPECT_EQ(sdk::float_to_half(1.0f), 0x3c00u);
  EXPECT_EQ(sdk::float_to_half(65519.996f), 0x7bffu);
  EXPECT_EQ(sdk::float_to_half(0x1.ffcp-15f), 0x0400u);  // rounds up into the normals
  EXPECT_EQ(sdk::half_to_float(0x03ffu), 0x1.ff8p-15f);
  EXPECT_EQ(sdk::half_to_float(0xfbffu), -65504.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(sdk::half_to_float(0x8000u)), 0x80000000u);
}

TEST(SdkFloat16, EveryFiniteHalfSurvivesARoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    if ((bits & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(sdk::float_to_half(sdk::half_to_float(bits)), bits) << std::hex << h;
  }
}

// NaNs with either sign, quiet and signaling, payloads in the kept and in the dropped bits.
constexpr uint32_t kFloatNaNs[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                   0x7f812345u, 0xff812345u, 0x7fffffffu, 0xffffffffu};

TEST(SdkFloat16, EveryNaNBecomesPyTorchsBf16NaN) {
  // c10::BFloat16's round_to_nearest_even: `if (std::isnan(src)) return 0x7FC0;`.
  for (uint32_t nan : kFloatNaNs) {
    EXPECT_EQ(sdk::float_to_bf16(from_bits(nan)), sdk::kBf16NaN) << std::hex << nan;
  }
  EXPECT_EQ(sdk::kBf16NaN, 0x7fc0u);
  EXPECT_TRUE(std::isnan(sdk::bf16_to_float(sdk::kBf16NaN)));
}

TEST(SdkFloat16, EveryNaNBecomesPyTorchsHalfNaNOfItsSign) {
  // c10::Half's fp16_ieee_from_fp32_value: a NaN becomes 0x7E00 with the sign bit kept.
  for (uint32_t nan : kFloatNaNs) {
    const uint16_t sign = (nan & 0x80000000u) != 0 ? 0x8000u : 0u;
    EXPECT_EQ(sdk::float_to_half(from_bits(nan)), sign | sdk::kHalfQuietNaN) << std::hex << nan;
  }
  EXPECT_EQ(sdk::kHalfQuietNaN, 0x7e00u);
}

TEST(SdkFloat16, WideningAHalfNaNQuietsItAndABf16NaNKeepsItsBits) {
  // c10::Half widens through a float multiply (as F16C converts), which quiets a signaling
  // NaN and keeps its payload; c10::BFloat16 widens by a shift.
  EXPECT_EQ(std::bit_cast<uint32_t>(sdk::half_to_float(0x7c01u)), 0x7fc02000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(sdk::half_to_float(0xfe00u)), 0xffc00000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(sdk::bf16_to_float(0x7f81u)), 0x7f810000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(sdk::bf16_to_float(0xffc1u)), 0xffc10000u);
}

}  // namespace
