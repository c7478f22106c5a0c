// The terminal table: the session summary, then aligned columns.
#include "report_cells.hpp"
#include "reports.hpp"

#include <algorithm>

namespace dopant::ab {
namespace {

// Width on a terminal: UTF-8 continuation bytes take no column.
size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

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
  if (rows.size() == 1) text += "  (no metric was reported by both the base and a variant)\n";
  return text;
}

}  // namespace dopant::ab
