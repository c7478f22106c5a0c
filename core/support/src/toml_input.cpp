// Reading TOML input: the bounded file read, the dotted-key depth scan, the parse, and the
// capped, position-sorted problem report.
#include <dopant/support/toml_input.hpp>

#include <dopant/support/text.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

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


// Adds a problem at the first chain of more than kMaxDottedKeyParts parts; true when none.
// A part is a bare word or a quoted string; parts joined by dots (whitespace allowed around
// them) form one chain, and anything else ends it. Strings and comments are skipped whole,
// so dots inside them never count. Floats (`1.5`) form short chains too, harmlessly.
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

}  // namespace

SourcePos position_of(const toml::source_region& region) {
  if (region.begin.line == 0) return {};
  return {region.begin.line, std::max<uint32_t>(region.begin.column, 1)};
}

SourcePos position_of_key(const toml::key& key, const toml::node& value) {
  if (key.source().begin.line != 0) return position_of(key.source());
  return position_of(value.source());
}

const char* toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::optional<uint64_t> size_from_node(const toml::node& node, std::string* error) {
  if (const auto* integer = node.as_integer()) {
    if (integer->get() >= 0) return static_cast<uint64_t>(integer->get());
    if (error) *error = "size must not be negative";
    return std::nullopt;
  }
  if (const auto* text = node.as_string()) return parse_size(text->get(), error);
  if (error) *error = std::string("expected size (integer or string like \"256MiB\"), got ") + toml_type_name(node);
  return std::nullopt;
}

namespace {

bool comes_before(SourcePos a, SourcePos b) { return a.line != b.line ? a.line < b.line : a.column < b.column; }

}  // namespace

void Diagnostics::add(SourcePos pos, const std::string& text) {
  ++total_;
  // Past the cap, the problem latest in the file makes room (the first of equals stays).
  if (problems_.size() == kMaxReportedProblems) {
    auto latest = problems_.begin();
    for (auto it = problems_.begin(); it != problems_.end(); ++it) {
      if (!comes_before(it->pos, latest->pos)) latest = it;
    }
    if (!comes_before(pos, latest->pos)) return;
    problems_.erase(latest);
  }
  problems_.push_back({pos, one_line(text)});
}

std::string Diagnostics::report() const {
  std::vector<Problem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Problem& a, const Problem& b) { return comes_before(a.pos, b.pos); });
  const std::string source = one_line(source_);
  std::string message;
  for (const auto& problem : sorted) {
    if (!message.empty()) message += '\n';
    message += source;
    if (problem.pos.line != 0) {
      message += ":" + std::to_string(problem.pos.line) + ":" + std::to_string(problem.pos.column);
    }
    message += ": " + problem.text;
  }
  if (total_ > problems_.size()) {
    message += "\n" + source + ": " + std::to_string(total_ - problems_.size()) + " more problems not shown";
  }
  return message;
}

InputFile read_input_file(const std::string& path) {
  InputFile result;
  const auto fail = [&](InputFile::Problem problem, const std::string& reason) {
    result.problem = problem;
    result.text.clear();
    result.message = path + ": cannot read file: " + reason;
    return result;
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    const int error_number = errno;
    const InputFile::Problem problem = error_number == ENOENT   ? InputFile::Problem::NotFound
                                       : error_number == EACCES ? InputFile::Problem::PermissionDenied
                                                                : InputFile::Problem::Unreadable;
    return fail(problem, std::strerror(error_number));
  }
  // Read one byte past the bound, so a file of exactly the bound is accepted and anything
  // longer (a huge file, /dev/zero) stops there.
  char buffer[1 << 16];
  while (result.text.size() <= kMaxTomlInputBytes) {
    const std::size_t wanted = std::min(sizeof buffer, kMaxTomlInputBytes + 1 - result.text.size());
    const std::size_t count = std::fread(buffer, 1, wanted, file.get());
    result.text.append(buffer, count);
    if (count < wanted) break;
  }
  if (std::ferror(file.get())) return fail(InputFile::Problem::Unreadable, std::strerror(errno));
  if (result.text.size() > kMaxTomlInputBytes) {
    return fail(InputFile::Problem::TooLarge,
                "larger than " + std::to_string(kMaxTomlInputBytes >> 20) + " MiB, the most dopant reads");
  }
  return result;
}

std::optional<toml::table> parse_toml_text(std::string_view text, Diagnostics& diagnostics) {
  if (text.size() > kMaxTomlInputBytes) {
    diagnostics.add(kWholeFile, "input of " + std::to_string(text.size()) + " bytes is larger than " +
                            std::to_string(kMaxTomlInputBytes >> 20) + " MiB, the most dopant reads");
    return std::nullopt;
  }
  if (!check_dotted_key_depth(text, diagnostics)) return std::nullopt;
  try {
    return toml::parse(text, diagnostics.source());
  } catch (const toml::parse_error& error) {
    diagnostics.add(position_of(error.source()), "invalid TOML: " + std::string(error.description()));
  }
  return std::nullopt;
}

}  // namespace dopant
