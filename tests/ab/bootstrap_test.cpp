// The bootstrap ratio interval on known data, against the reference script that replays the
// same splitmix64 resampling with NumPy (fixtures/bootstrap_reference.json); medians and
// MADs against NumPy/SciPy; and properties: determinism by seed, interval order, zeros.
#include "statistics.hpp"
#include "fixture_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dopant::ab {
namespace {

TEST(Bootstrap, MatchesReferenceReplay) {
  const JsonValue fixture = testing::read_fixture("bootstrap_reference.json");
  const auto& cases = fixture.at("cases").array();
  ASSERT_GE(cases.size(), 3u);
  for (const JsonValue& c : cases) {
    const std::string name = c.at("name").string();
    const std::vector<double> base = testing::numbers(c.at("base"));
    const std::vector<double> variant = testing::numbers(c.at("variant"));
    BootstrapSettings settings;
    settings.seed = static_cast<uint64_t>(c.at("seed").number());
    settings.resamples = static_cast<size_t>(c.at("resamples").number());
    settings.confidence = c.at("confidence").number();
    const RatioInterval interval = bootstrap_median_ratio(base, variant, settings);
    EXPECT_NEAR(interval.ratio, c.at("ratio").number(), 1e-12) << name;
    EXPECT_NEAR(interval.low, c.at("low").number(), 1e-12) << name;
    EXPECT_NEAR(interval.high, c.at("high").number(), 1e-12) << name;
    EXPECT_NEAR(median(base), c.at("median_base").number(), 1e-12) << name;
    EXPECT_NEAR(median_absolute_deviation(base), c.at("mad_base").number(), 1e-12) << name;
    EXPECT_NEAR(median(variant), c.at("median_variant").number(), 1e-12) << name;
    EXPECT_NEAR(median_absolute_deviation(variant), c.at("mad_variant").number(), 1e-12) << name;
  }
}

TEST(Bootstrap, SplitMixKnownOutput) {
  // The first outputs of splitmix64 seeded with 0 (the generator's published test vector).
  SplitMix64 random(0);
  EXPECT_EQ(random.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(random.next(), 0x6e789e6aa1b965f4ULL);
}

TEST(Bootstrap, SameSeedSameIntervalOtherSeedOther) {
  const std::vector<double> a{10, 11, 9.5, 10.4, 10.1, 9.8, 10.6};
  const std::vector<double> b{8.1, 8.4, 7.9, 8.8, 8.0, 8.3, 8.6};
  BootstrapSettings settings;
  const RatioInterval first = bootstrap_median_ratio(a, b, settings);
  const RatioInterval again = bootstrap_median_ratio(a, b, settings);
  EXPECT_EQ(first.low, again.low);
  EXPECT_EQ(first.high, again.high);
  // Another seed draws other resamples: with 40 distinct values per side the interval's
  // interpolated ends move.
  std::vector<double> wide_a;
  std::vector<double> wide_b;
  for (int i = 0; i < 40; ++i) {
    wide_a.push_back(10 + std::sin(1.7 * i));
    wide_b.push_back(9 + std::cos(2.3 * i));
  }
  const RatioInterval seeded = bootstrap_median_ratio(wide_a, wide_b, settings);
  settings.seed = 99;
  const RatioInterval reseeded = bootstrap_median_ratio(wide_a, wide_b, settings);
  EXPECT_TRUE(seeded.low != reseeded.low || seeded.high != reseeded.high);
  EXPECT_EQ(seeded.ratio, reseeded.ratio);
  EXPECT_LE(first.low, first.ratio);
  EXPECT_GE(first.high, first.ratio);
  EXPECT_LT(first.high, 1.0);  // every variant value is below every base value
}

TEST(Bootstrap, ZeroMediansAndEmptySamples) {
  EXPECT_EQ(median_ratio(0, 0), 1.0);
  EXPECT_TRUE(std::isinf(median_ratio(0, 2)));
  const RatioInterval zeros = bootstrap_median_ratio({0, 0, 0}, {0, 0, 0}, {});
  EXPECT_EQ(zeros.ratio, 1.0);
  EXPECT_EQ(zeros.low, 1.0);
  EXPECT_EQ(zeros.high, 1.0);
  EXPECT_THROW(bootstrap_median_ratio({}, {1.0}, {}), std::invalid_argument);
}

TEST(SummaryStats, MedianMadAndQuantiles) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_EQ(median_absolute_deviation({1, 1, 2, 2, 4, 6, 9}), 1.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted({1, 2, 3, 4, 5}, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted({1, 2, 3, 4}, 0.25), 1.75);
}

}  // namespace
}  // namespace dopant::ab
