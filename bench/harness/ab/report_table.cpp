// The terminal table: the session summary, aligned columns, then the failed runs.
#include "report_cells.hpp"
#include "reports.hpp"

#include <algorithm>

namespace dopant::ab {

std::string render_table(const AbResult& result) {
  const auto rows = comparison_cells(result);
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  }
  std::string text = session_summary(result) + "\n";
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - display_width(row[i]) + 1, ' ');
    }
    text += line + "\n";
  }
  const bool compared = std::any_of(result.metrics.begin(), result.metrics.end(),
                                   [](const MetricResult& metric) { return !metric.comparisons.empty(); });
  if (!compared) text += "  (no metric was reported by both the base and a variant)\n";
  for (const std::string& line : failure_lines(result)) text += "  " + line + "\n";
  return text;
}

}  // namespace dopant::ab
