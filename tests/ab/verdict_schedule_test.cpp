// The verdict rule (significance and an interval wholly beyond the noise threshold, by the
// metric's direction) and the interleaved ABBA schedule with warm-ups first.
#include "session.hpp"
#include "statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dopant::ab {
namespace {

TEST(Verdict, NeedsSignificanceAndIntervalBeyondThreshold) {
  const VerdictRule rule;  // alpha 0.05, threshold 2%
  const RatioInterval faster{0.80, 0.75, 0.85};
  EXPECT_EQ(decide_verdict(faster, 0.01, false, rule), Verdict::improved);
  EXPECT_EQ(decide_verdict(faster, 0.01, true, rule), Verdict::regressed);
  EXPECT_EQ(decide_verdict(faster, 0.06, false, rule), Verdict::no_change);
  const RatioInterval slower{1.2, 1.1, 1.3};
  EXPECT_EQ(decide_verdict(slower, 0.001, false, rule), Verdict::regressed);
  EXPECT_EQ(decide_verdict(slower, 0.001, true, rule), Verdict::improved);
  // Significant, but the interval reaches into the noise band.
  EXPECT_EQ(decide_verdict(RatioInterval{0.97, 0.95, 0.99}, 0.001, false, rule), Verdict::no_change);
  EXPECT_EQ(decide_verdict(RatioInterval{1.05, 1.01, 1.09}, 0.001, false, rule), Verdict::no_change);
  VerdictRule loose = rule;
  loose.noise_threshold = 0.005;
  EXPECT_EQ(decide_verdict(RatioInterval{0.97, 0.95, 0.99}, 0.001, false, loose), Verdict::improved);
  EXPECT_STREQ(verdict_name(Verdict::no_change), "no change");
  EXPECT_STREQ(verdict_name(Verdict::improved), "improved");
  EXPECT_STREQ(verdict_name(Verdict::regressed), "regressed");
}

// The rule's edges are strict: p equal to alpha is not significant, and an interval that
// touches 1 +- threshold is inside the noise band. Kills the mutants `p <= alpha`,
// `low >= 1 + threshold` and `high <= 1 - threshold` of decide_verdict.
TEST(Verdict, TheEdgesOfTheRuleAreStrict) {
  const VerdictRule rule;
  const double up = 1 + rule.noise_threshold;
  const double down = 1 - rule.noise_threshold;
  const RatioInterval clearly_up{1.2, 1.1, 1.3};
  EXPECT_EQ(decide_verdict(clearly_up, rule.alpha, true, rule), Verdict::no_change);
  EXPECT_EQ(decide_verdict(clearly_up, std::nextafter(rule.alpha, 0.0), true, rule), Verdict::improved);
  EXPECT_EQ(decide_verdict(RatioInterval{1.1, up, 1.2}, 0.001, true, rule), Verdict::no_change);
  EXPECT_EQ(decide_verdict(RatioInterval{1.1, std::nextafter(up, 2.0), 1.2}, 0.001, true, rule), Verdict::improved);
  EXPECT_EQ(decide_verdict(RatioInterval{0.9, 0.8, down}, 0.001, false, rule), Verdict::no_change);
  EXPECT_EQ(decide_verdict(RatioInterval{0.9, 0.8, std::nextafter(down, 0.0)}, 0.001, false, rule),
            Verdict::improved);
}

std::string pattern(const std::vector<ScheduledRun>& runs, bool warmup) {
  std::string letters;
  for (const ScheduledRun& run : runs) {
    if (run.warmup == warmup) letters += static_cast<char>('A' + run.variant);
  }
  return letters;
}

TEST(Schedule, InterleavesAbbaWithWarmupsFirst) {
  const std::vector<ScheduledRun> runs = interleaved_schedule(2, 4, 1);
  ASSERT_EQ(runs.size(), 10u);
  EXPECT_TRUE(runs[0].warmup && runs[1].warmup);
  EXPECT_EQ(pattern(runs, true), "AB");
  EXPECT_EQ(pattern(runs, false), "BAABBAAB");
  for (size_t i = 2; i < runs.size(); ++i) EXPECT_FALSE(runs[i].warmup);
  EXPECT_EQ(runs.back().repetition, 3u);
}

TEST(Schedule, ThreeConfigurationsAlternateDirection) {
  const std::vector<ScheduledRun> runs = interleaved_schedule(3, 3, 0);
  EXPECT_EQ(pattern(runs, false), "ABCCBAABC");
  size_t per_variant[3] = {0, 0, 0};
  for (const ScheduledRun& run : runs) ++per_variant[run.variant];
  EXPECT_EQ(per_variant[0], 3u);
  EXPECT_EQ(per_variant[2], 3u);
}

}  // namespace
}  // namespace dopant::ab
