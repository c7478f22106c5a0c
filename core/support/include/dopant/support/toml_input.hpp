// The one way dopant reads a TOML file, for every command that takes one (run, ab, check's
// parameters, plan memory): a read bounded in size, a scan that refuses absurdly deep dotted
// keys before toml++ recurses on them, the parse, and problems collected with their
// FILE:LINE:COLUMN and capped, so hostile input can neither exhaust memory nor flood the
// terminal. What each command does with the tables (schemas, the planner's sections) is
// its own; how a file becomes a table, and how problems are told, is shared here.
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dopant {

// Largest TOML input read or parsed: far above any hand-written config or plan, far below
// what could hurt the machine. A larger file is refused before it is parsed.
inline constexpr std::size_t kMaxTomlInputBytes = std::size_t{4} << 20;  // 4 MiB
// Most parts a dotted key (`a.b.c`) or table header (`[a.b.c]`) may have; toml++ builds
// such keys recursively and would overflow the stack on tens of thousands.
inline constexpr int kMaxDottedKeyParts = 64;
// Problems listed in one report; the rest are counted in a last line.
inline constexpr std::size_t kMaxReportedProblems = 50;

// A place in the input; line 0 stands for the file as a whole ("FILE: text").
struct SourcePos {
  uint32_t line = 1;
  uint32_t column = 1;
};
inline constexpr SourcePos kWholeFile{0, 0};

// Where a node starts (1:1 when the parser recorded nothing).
SourcePos position_of(const toml::source_region& region);
// Where `key` is written, falling back to its value's position.
SourcePos position_of_key(const toml::key& key, const toml::node& value);

// "string", "integer", "float", "table", ... for messages.
const char* toml_type_name(const toml::node& node);

// A byte size written as a non-negative integer or a string with a unit ("256MiB"); nullopt
// with `error` set otherwise (wrong type, negative, or not a size).
std::optional<uint64_t> size_from_node(const toml::node& node, std::string* error);

// Problems found in one input, each tied to a position. Keeps the kMaxReportedProblems that
// come first in the file, whatever order they were found in, and counts the rest.
class Diagnostics {
 public:
  explicit Diagnostics(std::string source) : source_(std::move(source)) {}

  // Records one problem; control characters in `text` are escaped so it stays on one line.
  void add(SourcePos pos, const std::string& text);
  bool empty() const { return total_ == 0; }
  const std::string& source() const { return source_; }
  // The kept problems in file order, one "FILE:LINE:COLUMN: text" per line, then
  // "FILE: N more problems not shown" when some were only counted. Empty when there are none.
  std::string report() const;

 private:
  struct Problem {
    SourcePos pos;
    std::string text;
  };
  std::string source_;
  std::vector<Problem> problems_;
  std::size_t total_ = 0;
};

// Reads a whole file of at most kMaxTomlInputBytes. A device such as /dev/zero or a FIFO is
// read the same way, so it too stops at the bound.
struct InputFile {
  enum class Problem { None, NotFound, PermissionDenied, Unreadable, TooLarge };
  Problem problem = Problem::None;
  std::string text;     // the file's bytes when problem is None
  std::string message;  // "PATH: cannot read file: reason" otherwise
};
InputFile read_input_file(const std::string& path);

// Parses `text` (named diagnostics.source() in messages): refuses text over
// kMaxTomlInputBytes and keys over kMaxDottedKeyParts, then reports toml++'s first syntax
// error. nullopt when any problem was added.
std::optional<toml::table> parse_toml_text(std::string_view text, Diagnostics& diagnostics);

}  // namespace dopant
