// The CSV report: one row per (metric, variant) comparison, numbers at full precision.
#include "json_text.hpp"
#include "reports.hpp"

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
  std::string text =
      "metric,unit,better,variant,n_base,n_variant,median_base,mad_base,median_variant,mad_variant,"
      "ratio,ci_low,ci_high,u,p,p_method,verdict\n";
  for (const MetricResult& metric : result.metrics) {
    for (const Comparison& c : metric.comparisons) {
      const std::vector<std::string> fields{
          csv_field(metric.info.name), csv_field(metric.info.unit), metric.info.higher_is_better ? "higher" : "lower",
          csv_field(c.variant), std::to_string(c.base.n), std::to_string(c.candidate.n), csv_number(c.base.median),
          csv_number(c.base.mad), csv_number(c.candidate.median), csv_number(c.candidate.mad),
          csv_number(c.ratio.ratio), csv_number(c.ratio.low), csv_number(c.ratio.high), csv_number(c.test.u),
          csv_number(c.test.p), method_name(c.test.method), verdict_name(c.verdict)};
      for (size_t i = 0; i < fields.size(); ++i) text += (i ? "," : "") + fields[i];
      text += "\n";
    }
  }
  return text;
}

}  // namespace dopant::ab
