// Safe one-line message fragments built from untrusted text.
#include <dopant/support/text.hpp>

#include <cstdio>

namespace dopant {
namespace {

constexpr std::size_t kMaxQuotedChars = 80;

}  // namespace

namespace {

// The length of a UTF-8 sequence at the start of `text` that a terminal treats as a control
// rather than a character, 0 otherwise: C1 controls U+0080..U+009F (C2 80..C2 9F; U+009B is
// CSI on some terminals) and the bidirectional overrides and isolates U+202A..U+202E and
// U+2066..U+2069 (E2 80 AA..AE, E2 81 A6..A9), which reorder what is shown after them.
size_t invisible_control_length(std::string_view text) {
  const auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  if (text.size() >= 2 && at(0) == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) return 2;
  if (text.size() >= 3 && at(0) == 0xE2 && at(1) == 0x80 && at(2) >= 0xAA && at(2) <= 0xAE) return 3;
  if (text.size() >= 3 && at(0) == 0xE2 && at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9) return 3;
  return 0;
}

// The code point of such a sequence, for its \u escape.
unsigned code_point(std::string_view sequence) {
  const auto at = [&](size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(sequence[i])); };
  if (sequence.size() == 2) return ((at(0) & 0x1Fu) << 6) | (at(1) & 0x3Fu);
  return ((at(0) & 0x0Fu) << 12) | ((at(1) & 0x3Fu) << 6) | (at(2) & 0x3Fu);
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (const size_t length = invisible_control_length(text.substr(i))) {
      char escaped[12];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", code_point(text.substr(i, length)));
      out += escaped;
      i += length - 1;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string quote_name(std::string_view name) {
  std::string out = "`";
  if (name.size() <= kMaxQuotedChars) {
    out += one_line(name);
  } else {
    std::size_t cut = kMaxQuotedChars;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    out += one_line(name.substr(0, cut));
    out += "...";
  }
  out += "`";
  return out;
}

std::string did_you_mean_suffix(std::string_view word, const std::vector<std::string>& candidates) {
  const auto suggestion = did_you_mean(word, candidates);
  if (!suggestion) return "";
  return "; did you mean " + quote_name(*suggestion) + "?";
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += quote_name(name);
  }
  return out;
}

}  // namespace dopant
