// `dopant ab FILE ...`: its options and the entry the CLI calls.
#pragma once

#include "ab_data.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dopant::ab {

// The arguments of `dopant ab`: the run file, the session's settings and the report files.

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

// `dopant ab FILE ...`: the A/B harness's entry for the CLI.

// `args`: the words after `ab` (FILE and options, see kAbUsage above).
// `self_executable`: path of the dopant binary, spawned as `dopant run` for each repetition.
// `plugin_paths`: the global --plugin-path folders, used here and passed on to the children.
// Prints the table on stdout and writes the report files. Runs that fail with a reported
// error (out of memory, ...), crash or time out are results, listed in every report.
// Returns the exit code (0) once the session is complete; throws std::invalid_argument for
// usage errors and std::runtime_error when the harness cannot carry a run out (the child
// cannot start, exits with an unexpected status, or leaves unreadable output), after which
// no report file has been written.
int command_ab(const std::vector<std::string>& args, const std::string& self_executable,
               const std::vector<std::string>& plugin_paths);

}  // namespace dopant::ab
