// Every CPU variant against the reference, bit for bit: fp32, bf16 and f16 parameters,
// awkward lengths and unaligned starts, several steps of each hyper-parameter set. The whole
// buffers are compared, so elements outside [begin, end) must be left alone too.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <tuple>

#include "adamw_test_tensors.hpp"
#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels::testing {
namespace {

class VariantTest : public ::testing::TestWithParam<std::tuple<Variant, ParamDtype>> {};

TEST_P(VariantTest, MatchesReferenceBitForBit) {
  const auto [variant, type] = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  for (size_t numel : {1, 7, 8, 15, 16, 17, 31, 33, 1023, 65537}) {
    for (size_t start : {0, 1, 3, 5}) {
      const size_t end = start + numel;
      TestTensor expected = random_tensor(type, end + 3, numel * 16 + start);
      TestTensor actual = expected;
      for (StepHyper hyper : test_hypers()) {
        for (int repeat = 0; repeat < 3; ++repeat, ++hyper.step) {
          const StepScalars scalars = make_step_scalars(hyper);
          step_range(Variant::reference, type, scalars, expected.refs(), start, end);
          step_range(variant, type, scalars, actual.refs(), start, end);
        }
      }
      ASSERT_TRUE(same_bits(expected, actual)) << "numel " << numel << ", start " << start;
    }
  }
}

TEST_P(VariantTest, ChangesOnlyTheRangeItIsGiven) {
  const auto [variant, type] = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  const TestTensor before = random_tensor(type, 40, 7);
  TestTensor after = before;
  step_range(variant, type, make_step_scalars(test_hypers()[0]), after.refs(), 3, 37);
  for (size_t i = 0; i < 40; ++i) {
    const auto bits = [](float value) { return std::bit_cast<uint32_t>(value); };
    if (i < 3 || i >= 37) {
      EXPECT_EQ(bits(before.exp_avg_sq[i]), bits(after.exp_avg_sq[i])) << "element " << i;
      EXPECT_EQ(bits(before.exp_avg[i]), bits(after.exp_avg[i])) << "element " << i;
    } else if (std::isnormal(before.exp_avg_sq[i])) {  // decays by beta2: must move
      EXPECT_NE(bits(before.exp_avg_sq[i]), bits(after.exp_avg_sq[i])) << "element " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    CpuVariants, VariantTest,
    ::testing::Combine(::testing::Values(Variant::scalar, Variant::avx2, Variant::avx512),
                       ::testing::Values(ParamDtype::f32, ParamDtype::bf16, ParamDtype::f16)),
    [](const auto& info) {
      return std::string(variant_name(std::get<0>(info.param))) + "_" +
             std::string(dtype_name(std::get<1>(info.param)));
    });

}  // namespace
}  // namespace dopant::adamw_kernels::testing
