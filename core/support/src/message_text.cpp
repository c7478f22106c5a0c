// Safe one-line message fragments built from untrusted text.
#include <dopant/support/text.hpp>

#include <cstdio>

namespace dopant {
namespace {

constexpr std::size_t kMaxQuotedChars = 80;

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
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
