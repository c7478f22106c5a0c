// Problems found while validating a run configuration, each tied to a file position, and
// thrown together as one Error whose message holds one "FILE:LINE:COLUMN: text" per line.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant {

struct SourcePos {
  uint32_t line = 1;
  uint32_t column = 1;
};

// Where a node starts (1:1 when the parser recorded nothing).
SourcePos position_of(const toml::source_region& region);
// Where `key` is written, falling back to its value's position.
SourcePos position_of_key(const toml::key& key, const toml::node& value);

class Diagnostics {
 public:
  explicit Diagnostics(std::string source) : source_(std::move(source)) {}

  // Records one problem; control characters in `text` are escaped so it stays on one line.
  void add(SourcePos pos, const std::string& text);
  bool empty() const { return problems_.empty(); }
  // Throws Error(DPT_INVALID_ARGUMENT) listing every problem in file order; no-op when empty.
  void throw_if_any() const;

 private:
  struct Problem {
    SourcePos pos;
    std::string text;
  };
  std::string source_;
  std::vector<Problem> problems_;
};

}  // namespace dopant
