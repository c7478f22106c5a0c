// Helpers that turn untrusted text (keys, values, plugin names) into safe one-line
// message fragments, shared by the parameter parser and the run-config validator.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dopant {

// Replaces control characters with escapes (\n, \t, \xNN) so a message stays on one line.
std::string one_line(std::string_view text);

// `name` in backticks, escaped with one_line and shortened when very long.
std::string quote_name(std::string_view name);

// "; did you mean `x`?" when did_you_mean finds a likely candidate, else "".
std::string did_you_mean_suffix(std::string_view word, const std::vector<std::string>& candidates);

// "`a`, `b`, `c`": every candidate quoted, for "must be one of ..." messages.
std::string quoted_list(const std::vector<std::string>& names);

}  // namespace dopant
