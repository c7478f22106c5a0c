// `dopant plugins list [--json]` and `dopant plugins describe NAME` on the built plugins:
// the list names c-sgd with its kind, and describe shows every declared parameter with its
// type, default and one-line doc, read back from the plugin's own declarations; a misspelt
// id gets a suggestion and a usage-error exit.
#include <dopant/runtime.h>
#include <gtest/gtest.h>

#include "command_output.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

using dopant::testing_support::command_output;

std::string cli() { return std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_PLUGIN_BUILD_DIR + "' "; }

TEST(CliPlugins, ListNamesEveryBuiltPluginWithItsKind) {
  const auto [text, status] = command_output(cli() + "plugins list");
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("c-sgd"), std::string::npos) << text;
  EXPECT_NE(text.find(DPT_KIND_OPTIMIZER), std::string::npos) << text;

  const auto [json, json_status] = command_output(cli() + "plugins list --json");
  ASSERT_EQ(json_status, 0) << json;
  EXPECT_EQ(json.front(), '[') << json;
  EXPECT_NE(json.find("\"id\": \"c-sgd\", \"kind\": \"dopant.optimizer/1\""), std::string::npos) << json;
}

// Load problems reach stderr at the default log level, one line naming file and reason,
// and the listing still exits 0 with the good plugins listed.
TEST(CliPlugins, ListPrintsLoadProblemsOnStderrAndStillExitsZero) {
  const std::string command = cli() + "--plugin-path '" + DOPANT_TEST_PLUGIN_DIR + "' plugins list";
  const auto [out, status] = command_output(command + " 2>/dev/null");
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("c-sgd"), std::string::npos) << out;
  EXPECT_EQ(out.find("dopant: skipped"), std::string::npos) << out;
  const auto [err, err_status] = command_output(command + " 2>&1 >/dev/null");
  EXPECT_EQ(err_status, 0) << err;
  EXPECT_NE(err.find("dopant: skipped " + std::string(DOPANT_TEST_PLUGIN_DIR) +
                     "/dopant-test-no-step.so: plugin `test-missing-slot`: optimizer table has no `step`\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("dopant: skipped " + std::string(DOPANT_TEST_PLUGIN_DIR) + "/dopant-test-wrong-major.so"),
            std::string::npos)
      << err;
}

TEST(CliPlugins, MissingPluginFolderIsReportedOnStderr) {
  const auto [err, status] = command_output(cli() + "--plugin-path /nonexistent-dopant-folder plugins list 2>&1 >/dev/null");
  EXPECT_EQ(status, 0) << err;
  EXPECT_NE(err.find("dopant: skipped /nonexistent-dopant-folder: plugin folder does not exist"), std::string::npos)
      << err;
}

// A --plugin-path library declaring the built-in id `adamw`: the documented rule (first in
// search order keeps the id) lets the stub win, and every command says so on stderr, naming
// the refused built-in and the library that kept the id: plugins list, run, ab and check.
TEST(CliPlugins, ADuplicateOfABuiltInIdIsReportedNamingBothLibraries) {
  const std::string stub_first = std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_STUB_PLUGIN_DIR +
                                 "' --plugin-path '" + DOPANT_PLUGIN_BUILD_DIR + "' ";
  const auto [err, status] = command_output(stub_first + "plugins list 2>&1 >/dev/null");
  EXPECT_EQ(status, 0) << err;
  const std::string builtin = std::string(DOPANT_PLUGIN_BUILD_DIR) + "/dopant-adamw.so";
  EXPECT_NE(err.find("dopant: skipped " + builtin + ": duplicate plugin id `adamw`, already loaded from " +
                     DOPANT_ADAMW_STUB),
            std::string::npos)
      << err;
  const auto [described, described_status] = command_output(stub_first + "plugins describe adamw 2>/dev/null");
  EXPECT_EQ(described_status, 0);
  EXPECT_NE(described.find("an optimizer whose id two libraries declare"), std::string::npos) << described;

  // run, ab and check say the same before they use the stub.
  const std::string config = ::testing::TempDir() + "dopant-duplicate-adamw.toml";
  std::ofstream(config) << "[run]\nworkload = \"optimizer-step\"\nrepetitions = 1\n[device]\nkind = \"cpu\"\n"
                        << "[workload]\nparams = 1000\ntensors = 1\ndtype = \"fp32\"\nsteps = 1\n"
                        << "[optimizer]\nplugin = \"adamw\"\nlr = 1e-3\n"
                        << "[variants.faster.optimizer]\nplugin = \"adamw\"\nlr = 2e-3\n";
  for (const std::string& command : {"run '" + config + "'", "ab '" + config + "' --repetitions 2 --warmup 0",
                                    std::string("check adamw --gtest_list_tests")}) {
    const auto [said, command_status] = command_output(stub_first + command + " 2>&1 >/dev/null");
    EXPECT_EQ(command_status, 0) << command << "\n" << said;
    EXPECT_NE(said.find("skipped " + builtin + ": duplicate plugin id `adamw`, already loaded from " + DOPANT_ADAMW_STUB),
              std::string::npos)
        << command << "\n" << said;
  }
  std::remove(config.c_str());
}

// `dopant check` on a library whose table lacks export_state used to segfault inside the
// conformance kit; the loader now refuses it, and check says why and fails.
TEST(CliPlugins, CheckOnALibraryWithoutARequiredSlotFailsSayingWhich) {
  const std::string library = std::string(DOPANT_TEST_PLUGIN_DIR) + "/dopant-test-no-export-state.so";
  const auto [out, status] = command_output(cli() + "check '" + library + "' 2>&1");
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find(library + ": plugin `test-missing-slot`: optimizer table has no `export_state`"), std::string::npos)
      << out;
}

TEST(CliPlugins, DescribeShowsEveryParameterWithTypeDefaultAndDoc) {
  dpt_runtime_options options{};
  options.struct_size = sizeof options;
  options.plugin_path = DOPANT_PLUGIN_BUILD_DIR;
  options.skip_default_paths = 1;
  dpt_runtime* runtime = nullptr;
  ASSERT_EQ(dpt_runtime_create(&options, &runtime), nullptr);
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime, "c-sgd");
  ASSERT_NE(info, nullptr);

  const auto [text, status] = command_output(cli() + "plugins describe c-sgd");
  ASSERT_EQ(status, 0) << text;
  const char* types[] = {"bool", "int", "float", "string", "size", "enum"};
  ASSERT_GT(info->descriptor->param_count, 0u);
  for (uint32_t i = 0; i < info->descriptor->param_count; ++i) {
    const dpt_param_decl& param = *info->descriptor->params[i];
    std::istringstream lines(text);
    std::string line, found;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string first;
      words >> first;
      if (first == param.name) found = line;
    }
    ASSERT_FALSE(found.empty()) << "no line for `" << param.name << "` in\n" << text;
    EXPECT_NE(found.find(types[param.type]), std::string::npos) << found;
    EXPECT_NE(found.find(param.default_value), std::string::npos) << found;
    EXPECT_NE(found.find(param.doc), std::string::npos) << found;
  }
  dpt_runtime_destroy(runtime);

}

TEST(CliPlugins, DescribeAMisspeltIdSuggestsTheLoadedOne) {
  const auto [missing, missing_status] = command_output(cli() + "plugins describe c-sdg 2>&1");
  EXPECT_EQ(missing_status, 2) << missing;
  EXPECT_NE(missing.find("no plugin `c-sdg` is loaded; did you mean `c-sgd`?"), std::string::npos) << missing;

  const auto [unknown, unknown_status] = command_output(cli() + "plugins describe zzzzzzzz 2>&1");
  EXPECT_EQ(unknown_status, 2) << unknown;
  EXPECT_NE(unknown.find("no plugin `zzzzzzzz` is loaded (see `dopant plugins list`)"), std::string::npos)
      << unknown;
}

}  // namespace
