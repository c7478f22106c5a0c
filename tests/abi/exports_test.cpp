// Every plugin library exports exactly one dynamic symbol, dpt_plugin_entry_v1: checked
// with `nm -D --defined-only` on each dopant-*.so in the build plugin folder and in the
// test plugin folder.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> plugin_libraries(const fs::path& folder) {
  std::vector<fs::path> libraries;
  if (!fs::is_directory(folder)) return libraries;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with("dopant-") && name.ends_with(".so"))
      libraries.push_back(entry.path());
  }
  return libraries;
}

// Names of the defined dynamic symbols of `library`; fails the test when nm fails.
std::set<std::string> defined_dynamic_symbols(const fs::path& library) {
  const std::string command =
      std::string(DOPANT_NM) + " -D --defined-only '" + library.string() + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  std::set<std::string> symbols;
  if (pipe == nullptr) return symbols;
  std::string output;
  char buffer[4096];
  while (size_t read = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, read);
  EXPECT_EQ(pclose(pipe), 0) << command << "\n" << output;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const size_t last_space = line.find_last_of(' ');
    if (!line.empty()) symbols.insert(line.substr(last_space + 1));  // "ADDRESS T NAME"
  }
  return symbols;
}

void expect_only_entry_exported(const std::vector<fs::path>& libraries) {
  const std::set<std::string> expected = {"dpt_plugin_entry_v1"};
  for (const fs::path& library : libraries)
    EXPECT_EQ(defined_dynamic_symbols(library), expected) << library;
}

TEST(PluginExports, BuildTreePluginsExportOnlyTheEntry) {
  const std::vector<fs::path> libraries = plugin_libraries(DOPANT_PLUGIN_BUILD_DIR);
#ifdef DOPANT_EXPECT_C_SGD
  EXPECT_TRUE(fs::exists(fs::path(DOPANT_PLUGIN_BUILD_DIR) / "dopant-c-sgd.so"));
#endif
  expect_only_entry_exported(libraries);
}

TEST(PluginExports, TestPluginsExportOnlyTheEntry) {
  const std::vector<fs::path> libraries = plugin_libraries(DOPANT_TEST_PLUGIN_DIR);
  EXPECT_FALSE(libraries.empty()) << "no plugin in " << DOPANT_TEST_PLUGIN_DIR;
  expect_only_entry_exported(libraries);
}

TEST(PluginExports, NmSeesExportsOfAPlainModule) {
  // The library without an entry symbol is built without the version script: nm must list
  // its export, or the tests above would pass on an empty listing.
  const fs::path plain = fs::path(DOPANT_TEST_PLUGIN_DIR) / "test-no-entry.so";
  EXPECT_EQ(defined_dynamic_symbols(plain), std::set<std::string>{"dopant_test_not_a_plugin"});
}

}  // namespace
