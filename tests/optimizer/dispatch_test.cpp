// Variant names, run-time support and the DOPANT_ADAMW_KERNEL override, and the argument
// checks of step_range.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "adamw_test_tensors.hpp"
#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels {
namespace {

TEST(Dispatch, NamesRoundTrip) {
  for (Variant v : {Variant::reference, Variant::scalar, Variant::avx2, Variant::avx512}) {
    EXPECT_EQ(parse_variant(variant_name(v)), v);
  }
  EXPECT_EQ(parse_variant("avx3"), std::nullopt);
}

TEST(Dispatch, PortableVariantsAlwaysRun) {
  EXPECT_TRUE(variant_supported(Variant::reference));
  EXPECT_TRUE(variant_supported(Variant::scalar));
  EXPECT_TRUE(variant_supported(active_variant()));
}

// ctest runs this test a second time with DOPANT_ADAMW_KERNEL=scalar (see CMakeLists.txt).
TEST(Dispatch, ActiveVariantFollowsTheEnvironment) {
  const char* requested = std::getenv("DOPANT_ADAMW_KERNEL");
  if (requested == nullptr) {
    EXPECT_NE(active_variant(), Variant::reference);  // the fastest is never the reference
    return;
  }
  EXPECT_EQ(variant_name(active_variant()), requested);
}

TEST(Dispatch, MasterWeightsGoWithSixteenBitParamsOnly) {
  testing::TestTensor f32 = testing::random_tensor(ParamDtype::f32, 4, 1);
  testing::TestTensor bf16 = testing::random_tensor(ParamDtype::bf16, 4, 1);
  const StepScalars scalars = make_step_scalars(testing::test_hypers()[0]);
  TensorRefs with_master = f32.refs();
  with_master.master = bf16.master.data();
  TensorRefs without_master = bf16.refs();
  without_master.master = nullptr;
  EXPECT_THROW(step_range(ParamDtype::f32, scalars, with_master, 0, 4), std::invalid_argument);
  EXPECT_THROW(step_range(ParamDtype::bf16, scalars, without_master, 0, 4),
               std::invalid_argument);
}

}  // namespace
}  // namespace dopant::adamw_kernels
