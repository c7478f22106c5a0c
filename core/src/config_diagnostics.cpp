// Collects run-config problems with their positions and reports them all at once.
#include "config_diagnostics.hpp"

#include "error.hpp"
#include <dopant/support/text.hpp>

#include <algorithm>

namespace dopant {

SourcePos position_of(const toml::source_region& region) {
  if (region.begin.line == 0) return {};
  return {region.begin.line, std::max<uint32_t>(region.begin.column, 1)};
}

SourcePos position_of_key(const toml::key& key, const toml::node& value) {
  if (key.source().begin.line != 0) return position_of(key.source());
  return position_of(value.source());
}

void Diagnostics::add(SourcePos pos, const std::string& text) {
  problems_.push_back({pos, one_line(text)});
}

void Diagnostics::throw_if_any() const {
  if (problems_.empty()) return;
  std::vector<Problem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  std::string message;
  for (const auto& problem : sorted) {
    if (!message.empty()) message += '\n';
    message += one_line(source_) + ":" + std::to_string(problem.pos.line) + ":" +
               std::to_string(problem.pos.column) + ": " + problem.text;
  }
  throw Error(DPT_INVALID_ARGUMENT, message);
}

}  // namespace dopant
