// Median and MAD, the Mann-Whitney U test (exact and asymptotic p), the seeded bootstrap
// interval of the ratio of medians, the verdict, and one comparison of two samples.

#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace dopant::ab {

// Median, MAD and quantiles of one sample.

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  if (fraction == 0.0 || sorted[below] == sorted[above]) return sorted[below];
  // NumPy's lerp: from the nearer end, so the result stays within [below, above].
  const double gap = sorted[above] - sorted[below];
  return fraction < 0.5 ? sorted[below] + gap * fraction : sorted[above] - gap * (1 - fraction);
}

double median_in_place(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto middle = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double below = *std::max_element(values.begin(), middle);
  return 0.5 * (below + *middle);
}

double median(std::vector<double> values) { return median_in_place(values); }

double median_absolute_deviation(const std::vector<double>& values) {
  const double center = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double value : values) deviations.push_back(std::fabs(value - center));
  return median(std::move(deviations));
}

// Mann-Whitney U: ranks, the exact null distribution as the coefficients of a Gaussian
// binomial coefficient, and the tie-corrected normal approximation.

namespace {

// Counts of the exact distribution grow like binomial(m + n, min(m, n)); 128-bit unsigned
// arithmetic is exact modulo 2^128, so intermediate negatives wrap and the final
// (non-negative, smaller) counts come out right.
__extension__ typedef unsigned __int128 Count;

// Number of arrangements giving each U = 0 .. m*n: the coefficients of the Gaussian
// binomial [m+n choose k]_q = prod_{i=1..k} (1 - q^(m+n-k+i)) / (1 - q^i), k = min(m, n).
std::vector<Count> u_counts(size_t m, size_t n) {
  const size_t k = std::min(m, n);
  const size_t rest = m + n - k;
  std::vector<Count> poly(m * n + 1, 0);
  poly[0] = 1;
  for (size_t i = 1; i <= k; ++i) {
    const size_t grow = rest + i;  // multiply by (1 - q^grow)
    for (size_t d = poly.size() - 1; d >= grow; --d) poly[d] -= poly[d - grow];
    for (size_t d = i; d < poly.size(); ++d) poly[d] += poly[d - i];  // divide by (1 - q^i)
  }
  return poly;
}

double normal_survival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Sum over tie groups of t^3 - t.
double tie_term(std::vector<double> ranks) {
  std::sort(ranks.begin(), ranks.end());
  double term = 0;
  for (size_t start = 0; start < ranks.size();) {
    size_t end = start;
    while (end < ranks.size() && ranks[end] == ranks[start]) ++end;
    const auto t = static_cast<double>(end - start);
    term += t * t * t - t;
    start = end;
  }
  return term;
}

bool has_ties(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

}  // namespace

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start;
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    const double shared = 0.5 * static_cast<double>(start + 1 + end);  // mean of ranks start+1..end
    for (size_t i = start; i < end; ++i) ranks[order[i]] = shared;
    start = end;
  }
  return ranks;
}

double exact_u_survival(uint64_t u, size_t m, size_t n) {
  if (u == 0) return 1.0;
  if (u > m * n) return 0.0;
  const std::vector<Count> counts = u_counts(m, n);
  Count total = 0;
  Count tail = 0;
  for (size_t d = 0; d < counts.size(); ++d) {
    total += counts[d];
    if (d >= u) tail += counts[d];
  }
  return static_cast<double>(static_cast<long double>(tail) / static_cast<long double>(total));
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("Mann-Whitney U: a sample is empty");
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  if (std::any_of(pooled.begin(), pooled.end(), [](double v) { return std::isnan(v); })) {
    throw std::invalid_argument("Mann-Whitney U: a sample holds NaN");
  }
  const std::vector<double> ranks = average_ranks(pooled);
  const auto n1 = static_cast<double>(x.size());
  const auto n2 = static_cast<double>(y.size());
  const double rank_sum = std::accumulate(ranks.begin(), ranks.begin() + static_cast<long>(x.size()), 0.0);

  MannWhitneyResult result;
  result.u = rank_sum - n1 * (n1 + 1) / 2;
  const double u_larger = std::max(result.u, n1 * n2 - result.u);
  const bool both_large = x.size() > 8 && y.size() > 8;
  if (!both_large && !has_ties(pooled)) {
    result.method = MannWhitneyMethod::exact;
    result.p = 2 * exact_u_survival(static_cast<uint64_t>(std::llround(u_larger)), x.size(), y.size());
  } else {
    result.method = MannWhitneyMethod::asymptotic;
    const double n = n1 + n2;
    const double spread = std::sqrt(n1 * n2 / 12 * ((n + 1) - tie_term(ranks) / (n * (n - 1))));
    const double shifted = u_larger - n1 * n2 / 2 - 0.5;  // continuity correction
    result.p = spread > 0 ? 2 * normal_survival(shifted / spread) : 1.0;
  }
  result.p = std::clamp(result.p, 0.0, 1.0);
  return result;
}

const char* method_name(MannWhitneyMethod method) {
  return method == MannWhitneyMethod::exact ? "exact" : "asymptotic";
}

// The seeded percentile bootstrap of the ratio of medians.

uint64_t SplitMix64::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t SplitMix64::index(size_t n) {
  __extension__ typedef unsigned __int128 Wide;
  return static_cast<size_t>((static_cast<Wide>(next()) * n) >> 64);
}

double median_ratio(double base_median, double variant_median) {
  if (base_median == 0 && variant_median == 0) return 1.0;
  if (base_median == 0) {
    return variant_median > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return variant_median / base_median;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& variant,
                                     const BootstrapSettings& settings) {
  if (base.empty() || variant.empty()) throw std::invalid_argument("bootstrap: a sample is empty");
  if (settings.resamples == 0) throw std::invalid_argument("bootstrap: no resamples");
  SplitMix64 random(settings.seed);
  std::vector<double> ratios;
  ratios.reserve(settings.resamples);
  std::vector<double> base_draw(base.size());
  std::vector<double> variant_draw(variant.size());
  for (size_t r = 0; r < settings.resamples; ++r) {
    for (double& value : base_draw) value = base[random.index(base.size())];
    for (double& value : variant_draw) value = variant[random.index(variant.size())];
    ratios.push_back(median_ratio(median_in_place(base_draw), median_in_place(variant_draw)));
  }
  std::sort(ratios.begin(), ratios.end());
  RatioInterval interval;
  interval.ratio = median_ratio(median(base), median(variant));
  interval.low = quantile_of_sorted(ratios, (1 - settings.confidence) / 2);
  interval.high = quantile_of_sorted(ratios, (1 + settings.confidence) / 2);
  return interval;
}

// The verdict rule: significance and an interval wholly beyond the noise threshold.

Verdict decide_verdict(const RatioInterval& interval, double p_value, bool higher_is_better,
                       const VerdictRule& rule) {
  if (!(p_value < rule.alpha)) return Verdict::no_change;
  const bool went_up = interval.low > 1 + rule.noise_threshold;
  const bool went_down = interval.high < 1 - rule.noise_threshold;
  if (!went_up && !went_down) return Verdict::no_change;
  return went_up == higher_is_better ? Verdict::improved : Verdict::regressed;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::improved: return "improved";
    case Verdict::regressed: return "regressed";
    case Verdict::no_change: break;
  }
  return "no change";
}

// Builds a Comparison from two samples.

SideSummary summarize_side(const std::vector<double>& values) {
  return SideSummary{values.size(), median(values), median_absolute_deviation(values)};
}

Comparison compare_samples(const std::string& variant, const std::vector<double>& base,
                           const std::vector<double>& candidate, bool higher_is_better,
                           const CompareSettings& settings) {
  Comparison comparison;
  comparison.variant = variant;
  comparison.test = mann_whitney_u(base, candidate);
  comparison.base = summarize_side(base);
  comparison.candidate = summarize_side(candidate);
  comparison.ratio = bootstrap_median_ratio(base, candidate, settings.bootstrap);
  const bool enough_values = base.size() >= 2 && candidate.size() >= 2;
  comparison.verdict = enough_values
                           ? decide_verdict(comparison.ratio, comparison.test.p, higher_is_better, settings.rule)
                           : Verdict::no_change;
  return comparison;
}

}  // namespace dopant::ab
