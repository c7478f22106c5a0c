// The Markdown report: a heading, the session summary, the comparison table, the failed
// runs as a list, and the order of runs.
#include "report_cells.hpp"
#include "reports.hpp"

namespace dopant::ab {
namespace {

std::string escape_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += " " + escape_cell(cell) + " |";
  return line + "\n";
}

}  // namespace

std::string render_markdown(const AbResult& result) {
  const auto rows = comparison_cells(result);
  std::string text = "# A/B: " + escape_cell(result.samples.config_file) + "\n\n" + session_summary(result) + "\n\n";
  text += markdown_row(rows[0]);
  text += markdown_row(std::vector<std::string>(rows[0].size(), "---"));
  for (size_t i = 1; i < rows.size(); ++i) text += markdown_row(rows[i]);
  const std::vector<std::string> failures = failure_lines(result);
  if (!failures.empty()) text += "\nFailed runs:\n\n";
  for (const std::string& line : failures) text += "- " + escape_cell(line) + "\n";
  text += "\nOrder of runs:";
  for (const RunRecord& run : result.samples.runs) {
    text += " " + run.variant + (run.warmup ? "(warm-up)" : "") + (run.failure ? "(" + (run.failure->never_reported() ? run.failure->code : std::string("failed")) + ")" : "");
  }
  return text + "\n";
}

}  // namespace dopant::ab
