// `dopant check PLUGIN_OR_PATH`: runs the conformance kit on a plugin or a library.
#include "commands.hpp"

#include <dopant/conformance.hpp>

#include <cstdlib>
#include <stdexcept>

namespace dopant::cli {

int command_check(const Options& options) {
  if (options.words.size() < 2) throw std::invalid_argument("usage: dopant check PLUGIN_OR_PATH [gtest flags]");
  // The conformance kit builds its own runtime over the default search path: hand it the
  // --plugin-path folders through DOPANT_PLUGIN_PATH, and the remaining words as GoogleTest
  // flags.
  std::string search;
  for (const std::string& path : options.plugin_paths) search += path + ":";
  if (const char* existing = std::getenv("DOPANT_PLUGIN_PATH")) search += existing;
  if (!search.empty()) setenv("DOPANT_PLUGIN_PATH", search.c_str(), 1);
  std::vector<std::string> rest(options.words.begin() + 2, options.words.end());
  std::vector<char*> argv{const_cast<char*>("dopant check")};
  for (std::string& word : rest) argv.push_back(word.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(argv.size()) - 1;
  return conformance::run(options.words[1], argc, argv.data());
}

}  // namespace dopant::cli
