// Builds a Comparison from two samples.
#include "compare_samples.hpp"

#include "summary_stats.hpp"

namespace dopant::ab {

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
