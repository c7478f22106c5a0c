// Command-line option parsing and runtime opening shared by the subcommands.
#include "cli_options.hpp"

#include "workloads.hpp"

#include <dopant/support/text.hpp>
#include <dopant/support/thread_limit.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace dopant::cli {
namespace {

dpt_log_level parse_log_level(const std::string& text) {
  const char* names[] = {"trace", "debug", "info", "warning", "error"};
  for (int level = 0; level < 5; ++level) {
    if (text == names[level]) return level;
  }
  throw std::invalid_argument("--log-level: unknown level `" + text + "` (trace, debug, info, warning, error)");
}

// --threads N: 0 meaning one per core, and at most max_pool_threads().
uint32_t parse_thread_count(const std::string& text) {
  const uint32_t limit = max_pool_threads();
  return parse_count("--threads", text, 0, limit,
                     " (0 for one per core, or 1 to " + std::to_string(limit) + " on this machine)");
}

}  // namespace

uint32_t parse_count(const std::string& flag, const std::string& text, uint32_t min, uint32_t max,
                     const std::string& range) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument(flag + ": " + quote_name(text) + " is not a count" + range);
  }
  // Digits past the tenth make the value exceed any limit; comparing the length first keeps
  // the number from overflowing.
  const std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
  const unsigned long long value = digits.size() > 10 ? max + 1ULL : std::stoull("0" + digits);
  if (value < min || value > max) throw std::invalid_argument(flag + ": " + quote_name(text) + " is out of range" + range);
  return static_cast<uint32_t>(value);
}

std::vector<std::string> take_flag_values(std::vector<std::string>& words, const std::string& flag) {
  std::vector<std::string> values;
  for (size_t i = 0; i < words.size();) {
    if (words[i] != flag) {
      ++i;
      continue;
    }
    if (i + 1 >= words.size()) throw std::invalid_argument(flag + ": missing value");
    values.push_back(words[i + 1]);
    words.erase(words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(i) + 2);
  }
  return values;
}

std::optional<std::string> take_flag_value(std::vector<std::string>& words, const std::string& flag) {
  const std::vector<std::string> values = take_flag_values(words, flag);
  if (values.size() > 1) {
    throw std::invalid_argument(flag + ": given twice (" + quote_name(values[0]) + ", " + quote_name(values[1]) +
                                "); give it once");
  }
  if (values.empty()) return std::nullopt;
  return values[0];
}

bool take_flag(std::vector<std::string>& words, const std::string& flag) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == flag) {
      words.erase(words.begin() + static_cast<long>(i));
      return true;
    }
  }
  return false;
}

Options parse_options(int argc, char** argv) {
  Options options;
  std::vector<std::string> words(argv + 1, argv + argc);
  // Words from `--` on belong to a command the subcommand runs (`sandbox exec -- CMD ...`).
  const auto end_of_options = std::find(words.begin(), words.end(), "--");
  std::vector<std::string> passed_on(end_of_options, words.end());
  words.erase(end_of_options, words.end());
  options.plugin_paths = take_flag_values(words, "--plugin-path");
  if (auto level = take_flag_value(words, "--log-level")) options.log_level = parse_log_level(*level);
  if (auto threads = take_flag_value(words, "--threads")) options.threads = parse_thread_count(*threads);
  words.insert(words.end(), passed_on.begin(), passed_on.end());
  options.words = std::move(words);
  return options;
}

dpt_runtime* open_runtime(const Options& options) {
  return workloads::open_runtime(options.plugin_paths, options.log_level, options.threads);
}

}  // namespace dopant::cli
