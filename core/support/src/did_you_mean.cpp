// "Did you mean": the candidate closest to a mistyped word, by edit distance.
#include <dopant/support/text.hpp>

#include <algorithm>
#include <cctype>

namespace dopant {
namespace {

// Words longer than this are not compared (keeps the quadratic distance cheap on hostile input).
constexpr std::size_t kMaxComparedLength = 256;
// A prefix match only counts when the shorter word is at least this long.
constexpr std::size_t kMinPrefixLength = 3;

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours, each one edit, so "cdua" is one edit from "cuda" (and two from "cpu").
//   d[i][j] = min(d[i-1][j] + 1, d[i][j-1] + 1, d[i-1][j-1] + (a[i-1] != b[j-1]),
//                 d[i-2][j-2] + 1 when a[i-1] == b[j-2] and a[i-2] == b[j-1])
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

bool one_is_prefix_of_other(std::string_view a, std::string_view b) {
  const std::string_view shorter = a.size() < b.size() ? a : b;
  const std::string_view longer = a.size() < b.size() ? b : a;
  return shorter.size() >= kMinPrefixLength && longer.substr(0, shorter.size()) == shorter;
}

}  // namespace

std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > kMaxComparedLength) return std::nullopt;
  for (const auto& candidate : candidates) {
    if (equal_ignoring_case(word, candidate)) return candidate;
  }
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    if (candidate.size() > kMaxComparedLength) continue;
    const std::size_t distance = edit_distance(word, candidate);
    const bool close = distance <= allowed && distance < word.size();  // not a full rewrite
    if (!close && !one_is_prefix_of_other(word, candidate)) continue;
    if (!best || distance < best_distance) {  // ties: the first candidate keeps it
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace dopant
