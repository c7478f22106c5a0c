// Text for messages and input: untrusted text (keys, values, plugin names) as safe
// one-line fragments, "did you mean" suggestions, and byte sizes with units. Shared by
// libdopant's config validator, the memory planner and the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dopant {

// Replaces control characters with escapes so a message stays on one line and shows what it
// holds: C0 controls and DEL as \n, \t, \xNN; C1 controls and the bidirectional overrides
// and isolates (U+202A..U+202E, U+2066..U+2069) as \uXXXX. A name is plain when
// one_line(name) == name.
std::string one_line(std::string_view text);

// `name` in backticks, escaped with one_line and shortened when very long.
std::string quote_name(std::string_view name);

// The candidate closest to `word` by edit distance (a swap of neighbours is one edit), when
// close enough to be a likely typo: at most a third of the word's length and at least 2
// edits allowed, or one word a prefix of the other (3 characters or more). A candidate that
// differs only in case wins outright; among equally close ones, the first listed wins.
// Words over 256 characters are not compared.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean `x`?" when did_you_mean finds a likely candidate, else "".
std::string did_you_mean_suffix(std::string_view word, const std::vector<std::string>& candidates);

// "`a`, `b`, `c`": every candidate quoted, for "must be one of ..." messages.
std::string quoted_list(const std::vector<std::string>& names);

// Parses a size: a non-negative integer, or a number with a unit. Decimal units K M G T P
// (also KB, MB, ...) and binary units KiB MiB GiB TiB PiB; a trailing "B" alone means bytes.
// "256MiB" -> 268435456, "1.5G" -> 1500000000. Returns nullopt and sets `error` when the text
// is not a size (unknown unit, negative, fraction of a unit that is not whole, overflow).
std::optional<uint64_t> parse_size(std::string_view text, std::string* error);

}  // namespace dopant
