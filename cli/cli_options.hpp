// Parsing of the dopant command line: global options, the subcommand and its arguments.
#pragma once

#include <dopant/runtime.h>

#include <optional>
#include <string>
#include <vector>

namespace dopant::cli {

struct Options {
  std::vector<std::string> plugin_paths;  // --plugin-path DIR (repeatable)
  dpt_log_level log_level = DPT_LOG_WARN;  // --log-level trace|debug|info|warning|error
  uint32_t threads = 0;                    // --threads N
  std::vector<std::string> words;          // the subcommand and its own arguments
};

// Throws std::invalid_argument naming the bad argument.
Options parse_options(int argc, char** argv);

// Removes `--flag VALUE` from words and returns VALUE; nullopt when absent. Throws
// std::invalid_argument when the flag has no value or is given more than once.
std::optional<std::string> take_flag_value(std::vector<std::string>& words, const std::string& flag);
// Every value of a flag that may be repeated (`--plugin-path A --plugin-path B`), in order.
std::vector<std::string> take_flag_values(std::vector<std::string>& words, const std::string& flag);
// Removes `--flag` and returns whether it was there.
bool take_flag(std::vector<std::string>& words, const std::string& flag);

// A count given to `flag`: digits only (no sign, no spaces, no wrap-around), from `min` to
// `max`. Throws std::invalid_argument naming the flag, the text and `range` (the accepted
// values in words, in parentheses).
uint32_t parse_count(const std::string& flag, const std::string& text, uint32_t min, uint32_t max,
                     const std::string& range);

// A runtime over the search path plus --plugin-path folders, with built-in workloads
// declared. Prints load problems at --log-level debug. Throws std::runtime_error.
dpt_runtime* open_runtime(const Options& options);

}  // namespace dopant::cli
