// Formatting of the comparison cells and the session summary.
#include "report_cells.hpp"

#include <cmath>
#include <cstdio>

namespace dopant::ab {

std::string short_number(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string session_summary(const AbResult& result) {
  const AbSettings& s = result.settings;
  std::string text = result.samples.config_file + ": workload " + result.samples.workload + "; " +
                     std::to_string(s.repetitions) + " repetitions per configuration (+" + std::to_string(s.warmups) +
                     " warm-up" + (s.warmups == 1 ? "" : "s") + "), interleaved; " +
                     (s.fresh_processes ? "fresh process per run" : "in process") + "; ";
  char rule[160];
  std::snprintf(rule, sizeof rule, "%g%% bootstrap CI (%zu resamples, seed %llu); verdict at p < %g beyond %g%% noise",
                100 * s.compare.bootstrap.confidence, s.compare.bootstrap.resamples,
                static_cast<unsigned long long>(s.compare.bootstrap.seed), s.compare.rule.alpha,
                100 * s.compare.rule.noise_threshold);
  return text + rule;
}

std::vector<std::vector<std::string>> comparison_cells(const AbResult& result) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"metric", "unit", "better", "variant", "base median ± MAD", "variant median ± MAD",
                  "ratio [95% CI]", "p", "verdict"});
  for (const MetricResult& metric : result.metrics) {
    for (const Comparison& c : metric.comparisons) {
      rows.push_back({metric.info.name, metric.info.unit, metric.info.higher_is_better ? "higher" : "lower", c.variant,
                      short_number(c.base.median) + " ± " + short_number(c.base.mad),
                      short_number(c.candidate.median) + " ± " + short_number(c.candidate.mad),
                      short_number(c.ratio.ratio) + " [" + short_number(c.ratio.low) + ", " +
                          short_number(c.ratio.high) + "]",
                      short_number(c.test.p), verdict_name(c.verdict)});
    }
  }
  return rows;
}

}  // namespace dopant::ab
