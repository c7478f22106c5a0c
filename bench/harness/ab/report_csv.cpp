// The CSV report: one row per (metric, variant) comparison, numbers at full precision, then
// one per pair only one side has values of (statistics empty, verdict "not compared"); the
// last two columns give the base's and the variant's failed runs, empty when none.
#include "report_cells.hpp"
#include "reports.hpp"

#include <dopant/support/json_text.hpp>

#include <map>

namespace dopant::ab {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Full precision; empty when not finite.
std::string csv_number(double value) {
  const std::string text = json_number(value);
  return text == "null" ? "" : text;
}

}  // namespace

std::string render_csv(const AbResult& result) {
  std::map<std::string, std::string> failures;  // configuration -> failure_text, when it had any
  for (const FailureSummary& summary : configurations_with_failures(result.samples)) {
    failures[summary.variant] = csv_field(failure_text(summary));
  }
  const std::string base = result.samples.variants.empty() ? std::string() : result.samples.variants[0];
  std::string text =
      "metric,unit,better,variant,n_base,n_variant,median_base,mad_base,median_variant,mad_variant,"
      "ratio,ci_low,ci_high,u,p,p_method,verdict,base_failures,variant_failures\n";
  for (const MetricResult& metric : result.metrics) {
    const auto add_row = [&](const std::string& variant, const SideSummary& base_side,
                             const SideSummary& variant_side, const std::vector<std::string>& statistics) {
      std::vector<std::string> fields{csv_field(metric.info.name), csv_field(metric.info.unit),
                                      metric.info.higher_is_better ? "higher" : "lower", csv_field(variant),
                                      std::to_string(base_side.n), std::to_string(variant_side.n),
                                      csv_number(base_side.median), csv_number(base_side.mad),
                                      csv_number(variant_side.median), csv_number(variant_side.mad)};
      fields.insert(fields.end(), statistics.begin(), statistics.end());
      fields.push_back(failures[base]);
      fields.push_back(failures[variant]);
      for (size_t i = 0; i < fields.size(); ++i) text += (i ? "," : "") + fields[i];
      text += "\n";
    };
    for (const Comparison& c : metric.comparisons) {
      add_row(c.variant, c.base, c.candidate,
              {csv_number(c.ratio.ratio), csv_number(c.ratio.low), csv_number(c.ratio.high), csv_number(c.test.u),
               csv_number(c.test.p), method_name(c.test.method), verdict_name(c.verdict)});
    }
    for (const OneSided& pair : metric.not_compared) {
      add_row(pair.variant, pair.base, pair.candidate, {"", "", "", "", "", "", kNotCompared});
    }
  }
  return text;
}

}  // namespace dopant::ab
