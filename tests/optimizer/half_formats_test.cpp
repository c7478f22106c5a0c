// The 16-bit conversions: the scalar reference on known values and round trips, and every
// variant's vectorized conversions against the reference (all 65536 patterns one way; the
// rounding boundaries of every exponent plus random floats the other way).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/half_formats.hpp"
#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels {
namespace {

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t to_bits(float value) { return std::bit_cast<uint32_t>(value); }

TEST(HalfFormats, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80u);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000u)), 0x3f80u);  // tie, even stays
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000u)), 0x3f82u);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808001u)), 0x3f81u);  // above the tie
  EXPECT_EQ(float_to_bf16(from_bits(0x7f7fffffu)), 0x7f80u);  // max float -> infinity
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000u);
  EXPECT_EQ(float_to_bf16(from_bits(0x00018000u)), 0x0002u);  // subnormal tie, odd: up
  EXPECT_EQ(float_to_bf16(from_bits(0xff812345u)), 0xffc1u);  // NaN: quieted, sign kept
}

TEST(HalfFormats, F16RoundsToNearestEven) {
  EXPECT_EQ(float_to_f16(1.0f), 0x3c00u);
  EXPECT_EQ(float_to_f16(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_f16(65519.996f), 0x7bffu);
  EXPECT_EQ(float_to_f16(65520.0f), 0x7c00u);                 // tie with 65536: infinity
  EXPECT_EQ(float_to_f16(0x1p-14f), 0x0400u);                 // smallest normal
  EXPECT_EQ(float_to_f16(0x1p-24f), 0x0001u);                 // smallest subnormal
  EXPECT_EQ(float_to_f16(0x1p-25f), 0x0000u);                 // tie with 0: even
  EXPECT_EQ(float_to_f16(0x1.8p-24f), 0x0002u);               // tie, odd rounds up
  EXPECT_EQ(float_to_f16(0x1.ffcp-15f), 0x0400u);             // rounds up into the normals
  EXPECT_EQ(float_to_f16(-std::numeric_limits<float>::infinity()), 0xfc00u);
  EXPECT_EQ(float_to_f16(from_bits(0x7f812345u)), 0x7e09u);   // NaN: quiet, top payload
}

TEST(HalfFormats, WideningIsExact) {
  EXPECT_EQ(bf16_to_float(0x3f80u), 1.0f);
  EXPECT_EQ(f16_to_float(0x0001u), 0x1p-24f);
  EXPECT_EQ(f16_to_float(0x03ffu), 0x1.ff8p-15f);
  EXPECT_EQ(f16_to_float(0xfbffu), -65504.0f);
  EXPECT_EQ(to_bits(f16_to_float(0x8000u)), 0x80000000u);
  EXPECT_EQ(to_bits(f16_to_float(0x7c01u)), 0x7fc02000u);     // NaN made quiet
}

TEST(HalfFormats, EveryFiniteHalfSurvivesARoundTrip) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    if ((bits & 0x7f80u) != 0x7f80u) {
      ASSERT_EQ(float_to_bf16(bf16_to_float(bits)), bits) << h;
    }
    if ((bits & 0x7c00u) != 0x7c00u) {
      ASSERT_EQ(float_to_f16(f16_to_float(bits)), bits) << h;
    }
  }
}

// Floats at and next to the rounding boundary of both formats for every upper half, plus
// random ones, NaNs and infinities included.
std::vector<float> boundary_floats() {
  std::vector<float> values;
  for (uint32_t high = 0; high <= 0xffffu; ++high) {
    for (uint32_t low : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu, 0x2000u, 0x4000u,
                         0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      values.push_back(from_bits(high << 16 | low));
    }
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 1'000'000; ++i) values.push_back(from_bits(static_cast<uint32_t>(rng())));
  return values;
}

class ConversionTest : public ::testing::TestWithParam<Variant> {};

TEST_P(ConversionTest, WideningMatchesTheReference) {
  const Variant variant = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  std::vector<uint16_t> all(65536 + 5);  // odd length: the tail path too
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> widened(all.size());
  for (ParamDtype type : {ParamDtype::bf16, ParamDtype::f16}) {
    widen_to_float(variant, type, all.data(), widened.data(), all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      const float expected = type == ParamDtype::bf16 ? bf16_to_float(all[i]) : f16_to_float(all[i]);
      ASSERT_EQ(to_bits(widened[i]), to_bits(expected)) << "pattern " << i;
    }
  }
}

TEST_P(ConversionTest, NarrowingMatchesTheReference) {
  const Variant variant = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  const std::vector<float> values = boundary_floats();
  std::vector<uint16_t> narrowed(values.size());
  for (ParamDtype type : {ParamDtype::bf16, ParamDtype::f16}) {
    narrow_from_float(variant, type, values.data(), narrowed.data(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t expected =
          type == ParamDtype::bf16 ? float_to_bf16(values[i]) : float_to_f16(values[i]);
      ASSERT_EQ(narrowed[i], expected) << "float bits 0x" << std::hex << to_bits(values[i]);
    }
  }
}

TEST_P(ConversionTest, Fp32IsCopied) {
  const Variant variant = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  const std::vector<float> values = {1.0f, -2.5f, 0x1p-140f, 3.0f, 7.0f};
  std::vector<float> widened(values.size());
  std::vector<float> narrowed(values.size());
  widen_to_float(variant, ParamDtype::f32, values.data(), widened.data(), values.size());
  narrow_from_float(variant, ParamDtype::f32, values.data(), narrowed.data(), values.size());
  EXPECT_EQ(widened, values);
  EXPECT_EQ(narrowed, values);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, ConversionTest,
                         ::testing::Values(Variant::reference, Variant::scalar, Variant::avx2,
                                           Variant::avx512),
                         [](const auto& info) { return std::string(variant_name(info.param)); });

}  // namespace
}  // namespace dopant::adamw_kernels
