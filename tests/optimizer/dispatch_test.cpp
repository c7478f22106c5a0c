// Variant names, run-time support and the DOPANT_ADAMW_KERNEL override, and the argument
// checks of step_range.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

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

// The best variant this CPU runs, from the kernel's own flag list (/proc/cpuinfo), a
// source independent of the __builtin_cpu_supports calls the dispatcher makes.
std::optional<Variant> best_variant_from_cpuinfo() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::set<std::string> flags;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string flag; words >> flag;) flags.insert(flag);
    const auto has = [&](std::initializer_list<const char*> names) {
      for (const char* name : names) {
        if (!flags.count(name)) return false;
      }
      return true;
    };
    if (has({"avx512f", "avx512bw", "avx512vl", "fma", "f16c"})) return Variant::avx512;
    if (has({"avx2", "fma", "f16c"})) return Variant::avx2;
    return Variant::scalar;
  }
  return std::nullopt;
}

// ctest runs this test a second time with DOPANT_ADAMW_KERNEL=scalar (see CMakeLists.txt).
// Unset, the dispatcher must pick the best variant the CPU has: swapping the avx512 and
// avx2 checks of fastest_supported (tried) fails here on an AVX-512 machine, and
// returning scalar fails on any x86-64 machine with AVX2.
TEST(Dispatch, ActiveVariantFollowsTheEnvironment) {
  const char* requested = std::getenv("DOPANT_ADAMW_KERNEL");
  if (requested != nullptr) {
    EXPECT_EQ(variant_name(active_variant()), requested);
    return;
  }
  const std::optional<Variant> best = best_variant_from_cpuinfo();
  if (!best) GTEST_SKIP() << "no flags line in /proc/cpuinfo";
  EXPECT_EQ(variant_name(active_variant()), variant_name(*best));
  EXPECT_EQ(variant_supported(Variant::avx512), *best == Variant::avx512);
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
