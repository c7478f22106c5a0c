// The statistics of an A/B comparison, whole: per side the median and MAD; the
// Mann-Whitney U test of the two sides; the bootstrap interval of the ratio of medians;
// the verdict rule; and compare_samples, which puts them together for one metric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dopant::ab {

// Order statistics of one sample: median, median absolute deviation and linear-interpolated
// quantiles (NumPy's default "linear" method, so reference scripts agree).

// Median; NaN for an empty sample.
double median(std::vector<double> values);

// Median of a scratch buffer, reordering it (no allocation); NaN when empty.
double median_in_place(std::vector<double>& values);

// Median absolute deviation from the median, unscaled (no 1.4826 factor); NaN when empty.
double median_absolute_deviation(const std::vector<double>& values);

// Quantile q in [0, 1] of an ascending sample, interpolating linearly between the order
// statistics at positions floor and ceil of q * (n - 1). NaN when empty.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

// The two-sided Mann-Whitney U test, computed the way scipy.stats.mannwhitneyu(x, y,
// alternative="two-sided", method="auto") does in SciPy 1.10: U is x's statistic
// (R_x - n_x (n_x + 1) / 2 with average ranks for ties); the p-value is exact when either
// sample has at most 8 values and there are no ties, otherwise the normal approximation
// with tie correction and continuity correction.

enum class MannWhitneyMethod { exact, asymptotic };

struct MannWhitneyResult {
  double u = 0;      // statistic of the first sample
  double p = 1;      // two-sided p-value, in [0, 1]
  MannWhitneyMethod method = MannWhitneyMethod::exact;
};

// Throws std::invalid_argument when a sample is empty or holds a NaN.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// Ranks 1..n of `values` in their order, ties sharing the average of their ranks.
std::vector<double> average_ranks(const std::vector<double>& values);

// P(U >= u) for samples of sizes m and n without ties (the exact null distribution).
double exact_u_survival(uint64_t u, size_t m, size_t n);

const char* method_name(MannWhitneyMethod method);

// Ratio of medians (variant / base) with a seeded percentile-bootstrap confidence interval.
//
// The resampling is reproducible from the seed alone, so reference scripts can replay it:
// a splitmix64 stream; each index into a sample of size n is (x * n) >> 64 for the next
// 64-bit output x; each resample draws the base's indices first, then the variant's. The
// interval's ends are the (1 - c)/2 and (1 + c)/2 quantiles of the sorted resampled ratios,
// interpolated linearly (NumPy's default percentile).

struct BootstrapSettings {
  uint64_t seed = 1;
  size_t resamples = 10000;
  double confidence = 0.95;
};

struct RatioInterval {
  double ratio = 1;  // median(variant) / median(base)
  double low = 1;
  double high = 1;
};

// The splitmix64 generator behind the resampling.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform index in [0, n).
  size_t index(size_t n);

 private:
  uint64_t state_;
};

// Ratio of two medians; 1 when both are zero, +-infinity when only the base is.
double median_ratio(double base_median, double variant_median);

// Throws std::invalid_argument when a sample is empty or resamples is 0.
RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& variant,
                                     const BootstrapSettings& settings);

// The verdict of one comparison: "no change" unless the Mann-Whitney p-value is below alpha
// AND the whole ratio interval lies beyond the noise threshold (above 1 + t or below 1 - t);
// then "improved" or "regressed" by the metric's better direction.

enum class Verdict { no_change, improved, regressed };

struct VerdictRule {
  double alpha = 0.05;
  double noise_threshold = 0.02;  // relative: 0.02 is 2%
};

Verdict decide_verdict(const RatioInterval& interval, double p_value, bool higher_is_better,
                       const VerdictRule& rule);

// "no change", "improved", "regressed".
const char* verdict_name(Verdict verdict);

// One metric, one variant against the base: each side's median and MAD, the ratio of
// medians with its bootstrap interval, the Mann-Whitney test and the verdict.

struct SideSummary {
  size_t n = 0;
  double median = 0;
  double mad = 0;
};

struct Comparison {
  std::string variant;
  SideSummary base;
  SideSummary candidate;
  RatioInterval ratio;
  MannWhitneyResult test;
  Verdict verdict = Verdict::no_change;
};

struct CompareSettings {
  BootstrapSettings bootstrap;
  VerdictRule rule;
};

// Size, median and MAD of one side; median and MAD are NaN when it is empty.
SideSummary summarize_side(const std::vector<double>& values);

// The verdict is "no change" when a side has fewer than 2 values (its bootstrap interval is
// then degenerate); otherwise as decide_verdict says. Throws std::invalid_argument when a
// sample is empty or holds NaN.
Comparison compare_samples(const std::string& variant, const std::vector<double>& base,
                           const std::vector<double>& candidate, bool higher_is_better,
                           const CompareSettings& settings);

}  // namespace dopant::ab
