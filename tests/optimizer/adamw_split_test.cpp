// Splitting a range anywhere gives the bits of one call: random cut points with a random
// variant per piece, and pieces run concurrently on threads as host->parallel_for would.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adamw_test_tensors.hpp"
#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels::testing {
namespace {

constexpr size_t kNumel = 65537;

std::vector<Variant> supported_variants() {
  std::vector<Variant> variants;
  for (Variant v : {Variant::reference, Variant::scalar, Variant::avx2, Variant::avx512}) {
    if (variant_supported(v)) variants.push_back(v);
  }
  return variants;
}

// 0 = cuts[0] < cuts[1] < ... < cuts.back() = numel, `pieces` pieces, random lengths.
std::vector<size_t> random_cuts(std::mt19937_64& rng, size_t numel, size_t pieces) {
  std::vector<size_t> cuts{0, numel};
  std::uniform_int_distribution<size_t> point(1, numel - 1);
  while (cuts.size() < pieces + 1) {
    const size_t cut = point(rng);
    if (std::find(cuts.begin(), cuts.end(), cut) == cuts.end()) cuts.push_back(cut);
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

class SplitTest : public ::testing::TestWithParam<ParamDtype> {};

TEST_P(SplitTest, RandomPiecesAndVariantsGiveTheBitsOfOneCall) {
  const ParamDtype type = GetParam();
  const std::vector<Variant> variants = supported_variants();
  std::mt19937_64 rng(42);
  for (size_t pieces : {2, 3, 17, 300}) {
    TestTensor whole = random_tensor(type, kNumel, pieces);
    TestTensor split = whole;
    for (StepHyper hyper : test_hypers()) {
      const StepScalars scalars = make_step_scalars(hyper);
      step_range(Variant::reference, type, scalars, whole.refs(), 0, kNumel);
      const std::vector<size_t> cuts = random_cuts(rng, kNumel, pieces);
      for (size_t p = 0; p + 1 < cuts.size(); ++p) {
        const Variant variant = variants[rng() % variants.size()];
        step_range(variant, type, scalars, split.refs(), cuts[p], cuts[p + 1]);
      }
    }
    ASSERT_TRUE(same_bits(whole, split)) << pieces << " pieces";
  }
}

TEST_P(SplitTest, ThreadsRunningPiecesConcurrentlyGiveTheBitsOfOneCall) {
  const ParamDtype type = GetParam();
  for (size_t threads : {2, 3, 7}) {
    TestTensor whole = random_tensor(type, kNumel, 100 + threads);
    TestTensor split = whole;
    const StepScalars scalars = make_step_scalars(test_hypers()[0]);
    step_range(type, scalars, whole.refs(), 0, kNumel);
    const TensorRefs refs = split.refs();
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        step_range(type, scalars, refs, kNumel * t / threads, kNumel * (t + 1) / threads);
      });
    }
    for (std::thread& worker : workers) worker.join();
    ASSERT_TRUE(same_bits(whole, split)) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(ParamDtypes, SplitTest,
                         ::testing::Values(ParamDtype::f32, ParamDtype::bf16, ParamDtype::f16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace dopant::adamw_kernels::testing
