// Reading a plan file: strict TOML table reading (declared keys only, typed values, one
// located line per failure) and the plan file's tables read into a PlanInput.
#pragma once

#include "plan_input.hpp"

#include <toml++/toml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::planner {

// Strict reading of one TOML table of a plan file: every key must be declared, every value
// must have the expected type and range, and each failure is one located line.

class TableReader {
 public:
  // Fails on the first key of `table` that is not in `allowed`, suggesting the closest one.
  // `section` is the dotted table name ("model.attention"); positions land in `input`.
  TableReader(const toml::table& table, std::string section, std::vector<std::string> allowed,
              PlanInput& input);

  // No dimension of a model, a cluster or a batch passes 2^32; refusing larger counts by
  // name keeps the planner's products of two inputs exact (and the rest checked, see mul()).
  static constexpr uint64_t kMaxCount = uint64_t{1} << 32;

  bool has(std::string_view key) const;
  // An integer in [minimum, maximum]; fails when missing.
  uint64_t count(std::string_view key, uint64_t minimum = 1, uint64_t maximum = kMaxCount);
  // An integer in [minimum, kMaxCount], or `fallback` when the key is absent.
  uint64_t count_or(std::string_view key, uint64_t fallback, uint64_t minimum = 1);
  bool flag_or(std::string_view key, bool fallback);
  std::string text_or(std::string_view key, std::string fallback);
  // One of `choices`; `fallback` when absent, a failure when absent and fallback is empty.
  std::string choice(std::string_view key, const std::vector<std::string>& choices,
                     std::string fallback = "");
  // A byte size: an integer or a string with a unit ("256MiB", "141GB").
  std::optional<uint64_t> size(std::string_view key);
  // A nested table, or nullptr when absent.
  const toml::table* subtable(std::string_view key);
  // Fails when `key` is present, saying why it does not apply.
  void forbid(std::string_view key, std::string_view reason);

  std::string dotted(std::string_view key) const;
  SourcePos position(std::string_view key) const;

 private:
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  const toml::node* value(std::string_view key);

  const toml::table& table_;
  std::string section_;
  PlanInput& input_;
};

// Reads a plan file (TOML) into a checked PlanInput. Every problem is a PlanError whose
// message is one line: "FILE:LINE:COLUMN: `section.key` ...".

// Parses and checks `text`; `source` names the file in messages.
PlanInput parse_plan_input(std::string_view text, const std::string& source);

// Reads and parses the file at `path`.
PlanInput load_plan_input(const std::string& path);

}  // namespace dopant::planner
