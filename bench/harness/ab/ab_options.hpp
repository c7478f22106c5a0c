// The arguments of `dopant ab`: the run file, the session's settings and the report files.
#pragma once

#include "ab_data.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dopant::ab {

struct AbOptions {
  std::string config_file;
  AbSettings settings;
  bool help = false;
  std::optional<std::string> json_path;
  std::optional<std::string> csv_path;
  std::optional<std::string> markdown_path;
  std::optional<std::string> svg_path;
};

// The usage text, ending in a newline.
extern const char* const kAbUsage;

// `args` are the words after `ab`. Throws std::invalid_argument naming the bad argument.
AbOptions parse_ab_options(const std::vector<std::string>& args);

}  // namespace dopant::ab
