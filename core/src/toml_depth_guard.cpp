// Counts the parts of every dotted chain in raw TOML text. A part is a bare word or a quoted
// string; parts joined by dots (whitespace allowed around them) form one chain. Anything
// else ends the chain. Strings and comments are skipped whole, so dots inside them never
// count. Values such as floats (`1.5`) form short chains too, which is harmless.
#include "toml_depth_guard.hpp"

namespace dopant {
namespace {

bool is_bare_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '+';
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  bool starts_with(std::string_view prefix) const { return text_.substr(pos_, prefix.size()) == prefix; }
  SourcePos position() const { return {line_, column_}; }

  void advance() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {  // count code points
      ++column_;
    }
  }
  void advance(std::size_t count) {
    for (std::size_t i = 0; i < count && !done(); ++i) advance();
  }

  // Skips a quoted string starting at the cursor (basic, literal, or their multi-line forms).
  void skip_string() {
    const char quote = peek();
    const std::string_view triple = quote == '"' ? "\"\"\"" : "'''";
    const bool multi_line = starts_with(triple);
    advance(multi_line ? 3 : 1);
    while (!done()) {
      if (quote == '"' && peek() == '\\') {
        advance(2);
      } else if (multi_line ? starts_with(triple) : peek() == quote) {
        advance(multi_line ? 3 : 1);
        return;
      } else if (!multi_line && peek() == '\n') {
        return;  // unterminated: toml++ reports it
      } else {
        advance();
      }
    }
  }

  void skip_comment() {
    while (!done() && peek() != '\n') advance();
  }

  void skip_bare_word() {
    while (!done() && is_bare_char(peek())) advance();
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
};

}  // namespace

bool check_dotted_key_depth(std::string_view text, Diagnostics& diagnostics) {
  Scanner scanner(text);
  int parts = 0;             // parts in the current chain
  bool after_dot = false;    // a dot follows the last part
  while (!scanner.done()) {
    const char c = scanner.peek();
    const bool starts_part = c == '"' || c == '\'' || is_bare_char(c);
    if (starts_part) {
      const SourcePos start = scanner.position();
      parts = after_dot ? parts + 1 : 1;
      after_dot = false;
      if (parts > kMaxDottedKeyParts) {
        diagnostics.add(start, "key has more than " + std::to_string(kMaxDottedKeyParts) +
                                   " dotted parts");
        return false;
      }
      if (c == '"' || c == '\'') {
        scanner.skip_string();
      } else {
        scanner.skip_bare_word();
      }
      continue;
    }
    if (c == '.' && parts > 0 && !after_dot) {
      after_dot = true;
    } else if (c != ' ' && c != '\t') {
      parts = 0;
      after_dot = false;
      if (c == '#') {
        scanner.skip_comment();
        continue;
      }
    }
    scanner.advance();
  }
  return true;
}

}  // namespace dopant
