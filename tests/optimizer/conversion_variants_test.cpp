// Every kernel variant's conversions of whole arrays against the SDK's scalar conversions
// (dopant/sdk/float16.hpp, tested on its own in tests/sdk/float16_test.cpp): all 65536
// patterns one way; the rounding boundaries of every exponent, NaNs of every kind, and random
// floats the other way.
#include <dopant/sdk/float16.hpp>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels {
namespace {

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t to_bits(float value) { return std::bit_cast<uint32_t>(value); }

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
      const float expected =
          type == ParamDtype::bf16 ? sdk::bf16_to_float(all[i]) : sdk::half_to_float(all[i]);
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
          type == ParamDtype::bf16 ? sdk::float_to_bf16(values[i]) : sdk::float_to_half(values[i]);
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
