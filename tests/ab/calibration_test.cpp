// Calibration on seeded synthetic data. With 200 A/B pairs of log-normal samples whose
// medians differ by a known ratio, the 95% bootstrap interval must cover that ratio in at
// least 90% of pairs; with 200 A/A pairs the verdict must be "no change" in at least 90%;
// and a clear 20% speed-up must be called "improved" in most pairs.
#include "statistics.hpp"

#include <gtest/gtest.h>

#include <random>

namespace dopant::ab {
namespace {

constexpr size_t kPairs = 200;

struct Pair {
  std::vector<double> base;
  std::vector<double> variant;
};

// Log-normal samples around median 1.0 (base) and `true_ratio` (variant), 5% spread.
Pair synthetic_pair(std::mt19937_64& random, size_t n, double true_ratio) {
  std::lognormal_distribution<double> noise(0.0, 0.05);
  Pair pair;
  for (size_t i = 0; i < n; ++i) pair.base.push_back(noise(random));
  for (size_t i = 0; i < n; ++i) pair.variant.push_back(true_ratio * noise(random));
  return pair;
}

struct Tally {
  size_t covered = 0;
  size_t no_change = 0;
  size_t improved = 0;
};

Tally run_pairs(size_t n, double true_ratio, uint64_t seed) {
  std::mt19937_64 random(seed);
  CompareSettings settings;
  Tally tally;
  for (size_t i = 0; i < kPairs; ++i) {
    const Pair pair = synthetic_pair(random, n, true_ratio);
    settings.bootstrap.seed = seed + i;
    const Comparison c = compare_samples("b", pair.base, pair.variant, false, settings);
    tally.covered += (c.ratio.low <= true_ratio && true_ratio <= c.ratio.high) ? 1 : 0;
    tally.no_change += c.verdict == Verdict::no_change ? 1 : 0;
    tally.improved += c.verdict == Verdict::improved ? 1 : 0;
  }
  return tally;
}

class Calibration : public ::testing::TestWithParam<size_t> {};

TEST_P(Calibration, IntervalCoversTrueRatio) {
  const Tally tally = run_pairs(GetParam(), 0.93, 11);
  EXPECT_GE(tally.covered, kPairs * 9 / 10) << tally.covered << " of " << kPairs << " intervals cover 0.93";
}

// 7 is `dopant ab`'s default repetitions; 15 a longer session.
INSTANTIATE_TEST_SUITE_P(Repetitions, Calibration, ::testing::Values(size_t{7}, size_t{15}));

TEST(CalibrationAtDefaultRepetitions, AaPairsSayNoChange) {
  const Tally tally = run_pairs(7, 1.0, 23);
  EXPECT_GE(tally.no_change, kPairs * 9 / 10) << tally.no_change << " of " << kPairs << " A/A pairs say no change";
  EXPECT_GE(tally.covered, kPairs * 9 / 10);
}

TEST(CalibrationAtDefaultRepetitions, ClearSpeedupIsImproved) {
  const Tally tally = run_pairs(7, 0.8, 37);
  EXPECT_GE(tally.improved, kPairs * 9 / 10) << tally.improved << " of " << kPairs << " pairs call 0.8 improved";
}

}  // namespace
}  // namespace dopant::ab
