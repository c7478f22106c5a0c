// Hostile-but-honest input to the dopant CLI: thread counts that are not counts or are far
// beyond the machine, parameter counts whose byte sizes wrap 64 bits, a plan file whose
// dotted key would overflow the parser's stack, and an endless device given as a config.
// Each is one clear error line naming the argument or parameter, and a normal exit status.
#include <dopant/runtime.h>
#include <dopant/support/thread_limit.hpp>
#include <gtest/gtest.h>

#include "command_output.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using dopant::testing_support::command_output;

std::string cli() { return std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_PLUGIN_BUILD_DIR + "' "; }

class CliHostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-hostile-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string write_file(const char* name, const std::string& text) const {
    const std::string path = (folder_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // Runs `arguments` through the CLI with stderr folded into the output.
  static std::pair<std::string, int> run(const std::string& arguments) {
    return command_output(cli() + arguments + " 2>&1");
  }

  static std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path folder_;
};

TEST_F(CliHostileInput, ThreadCountsAreRangeChecked) {
  const std::string limit = std::to_string(dopant::max_pool_threads());
  const std::string range = " (0 for one per core, or 1 to " + limit + " on this machine)\n";
  const struct {
    const char* value;
    const char* problem;
  } refused[] = {{"100000", "is out of range"}, {"-1", "is not a count"},
                 {"4294967296", "is out of range"}, {"18446744073709551617", "is out of range"},
                 {"+3", "is not a count"}, {"3x", "is not a count"}, {"''", "is not a count"}};
  for (const auto& bad : refused) {
    const auto [text, status] = run(std::string("--threads ") + bad.value + " plugins list");
    EXPECT_EQ(status, 2) << bad.value;
    const std::string shown = std::string(bad.value) == "''" ? "" : bad.value;
    EXPECT_EQ(text, "dopant: --threads: `" + shown + "` " + bad.problem + range) << bad.value;
  }
  EXPECT_EQ(run("--threads " + std::to_string(dopant::max_pool_threads() + 1) + " plugins list").second, 2);
  EXPECT_EQ(run("--threads " + limit + " plugins list").second, 0);
  EXPECT_EQ(run("--threads 0 plugins list").second, 0);
}

TEST_F(CliHostileInput, TheRuntimeRefusesAPoolBeyondTheLimit) {
  dpt_runtime_options options{};
  options.struct_size = sizeof options;
  options.skip_default_paths = 1;
  options.threads = dopant::max_pool_threads() + 1;
  dpt_runtime* runtime = nullptr;
  dpt_error* error = dpt_runtime_create(&options, &runtime);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(runtime, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(dpt_error_get_message(error)).find("options.threads = "), std::string::npos);
  dpt_error_destroy(error);
}

// Options older than 1.0's first two fields are refused rather than read past their end;
// removing the struct_size guard of dpt_runtime_create (tried) makes the first accepted.
TEST_F(CliHostileInput, TheRuntimeRefusesOptionsSmallerThanTheirFirstRelease) {
  dpt_runtime_options options = DPT_RUNTIME_OPTIONS_INIT;
  options.struct_size = sizeof(uint32_t);
  dpt_runtime* runtime = nullptr;
  dpt_error* error = dpt_runtime_create(&options, &runtime);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(runtime, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  EXPECT_STREQ(dpt_error_get_message(error), "dpt_runtime_create: options.struct_size 4 is too small");
  dpt_error_destroy(error);

  options.struct_size = DPT_STRUCT_SIZE(dpt_runtime_options, plugin_path);  // the smallest accepted
  error = dpt_runtime_create(&options, &runtime);
  EXPECT_EQ(error, nullptr) << dpt_error_get_message(error);
  dpt_runtime_destroy(runtime);
}

TEST_F(CliHostileInput, ParameterCountsWhoseBytesWrapAreRangeErrors) {
  for (const char* dtype : {"fp32", "bf16"}) {
    const std::string config = write_file(
        "wrap.toml", std::string("[run]\nworkload = \"optimizer-step\"\nrepetitions = 1\n[workload]\n"
                                 "params = 4611686018427387904\ntensors = 1\ndtype = \"") +
                         dtype + "\"\n[optimizer]\nplugin = \"c-sgd\"\n");
    const auto [text, status] = run("run '" + config + "'");
    EXPECT_EQ(status, 1) << dtype << "\n" << text;
    EXPECT_NE(text.find("dopant: error: workload `optimizer-step`: parameter `params` = 4611686018427387904 "
                        "is out of range: its buffers would need 2^63 bytes or more [invalid argument]"),
              std::string::npos)
        << dtype << "\n" << text;
  }
}

TEST_F(CliHostileInput, APlanFileWithADeepDottedKeyIsAnErrorNotACrash) {
  std::string header = "[";
  for (int i = 0; i < 50000; ++i) header += "a.";
  const std::string plan = write_file("deep.toml", header + "a]\n");
  const auto [text, status] = run("plan memory '" + plan + "'");
  EXPECT_EQ(status, 1) << text;
  EXPECT_EQ(text, "dopant plan: " + plan + ":1:130: key has more than 64 dotted parts\n");
}

TEST_F(CliHostileInput, AnEndlessDeviceAsConfigIsRefusedAtTheBound) {
  const std::string zero = (folder_ / "zero").string();
  if (mknod(zero.c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) GTEST_SKIP() << "mknod needs root";
  for (const char* command : {"run", "ab", "plan memory"}) {
    const auto [text, status] = run(std::string(command) + " '" + zero + "'");
    EXPECT_EQ(status, 1) << command << "\n" << text;
    EXPECT_NE(text.find(zero + ": cannot read file: larger than 4 MiB, the most dopant reads"), std::string::npos)
        << command << "\n" << text;
  }
}

// A small c-sgd run with a variant, so `run` and `ab` both accept it.
const char* const kSmallRun = R"([run]
workload = "optimizer-step"
repetitions = 1
[workload]
params = 1000
tensors = 2
steps = 1
[optimizer]
plugin = "c-sgd"
[variants.other.optimizer]
plugin = "c-sgd"
lr = 0.02
)";

TEST_F(CliHostileInput, OutputPathsAreCheckedBeforeAnyRunAndNothingIsLost) {
  const std::string config = write_file("run.toml", kSmallRun);
  const std::string folder = (folder_ / "out").string();
  fs::create_directory(folder);
  const std::string good = (folder_ / "good.json").string();
  const struct {
    std::string arguments;
    std::string message;
  } refused[] = {
      {"run '" + config + "' --json '" + config + "'",
       "--json " + config + ": is the input " + config + "; it would be overwritten"},
      {"run '" + config + "' --json '" + folder + "'", "--json " + folder + ": is a folder"},
      {"ab '" + config + "' --repetitions 2 --json '" + folder + "'", "--json " + folder + ": is a folder"},
      {"ab '" + config + "' --repetitions 2 --json '" + good + "' --svg '" + folder + "/missing/x.svg'",
       "--svg " + folder + "/missing/x.svg: folder " + folder + "/missing does not exist"},
      {"ab '" + config + "' --repetitions 2 --json '" + good + "' --csv '" + good + "'",
       "--csv " + good + ": is the same file as --json " + good},
      // root may "write" /proc by its permissions, but no file can be made there
      {"ab '" + config + "' --repetitions 2 --json /proc/dopant-report.json",
       "--json /proc/dopant-report.json: cannot write in folder /proc: No such file or directory"},
  };
  for (const auto& bad : refused) {
    const auto [text, status] = run(bad.arguments);
    EXPECT_EQ(status, 1) << bad.arguments << "\n" << text;
    EXPECT_EQ(text, "dopant: error: " + bad.message + "\n") << "refused after running, or not at all: " << bad.arguments;
  }
  // An option given twice would silently keep the last: a usage error (status 2).
  const std::string other = folder + "/other.json";
  for (const auto& [arguments, message] : std::vector<std::pair<std::string, std::string>>{
           {"run '" + config + "' --json '" + good + "' --json '" + other + "'",
            "--json: given twice (`" + good + "`, `" + other + "`); give it once"},
           {"ab '" + config + "' --json '" + good + "' --json '" + other + "'", "--json: given twice; give it once"}}) {
    const auto [text, status] = run(arguments);
    EXPECT_EQ(status, 2) << arguments << "\n" << text;
    EXPECT_EQ(text, "dopant: " + message + "\n") << arguments;
  }
  EXPECT_EQ(read_text(config), kSmallRun) << "the config was overwritten";
  EXPECT_FALSE(fs::exists(good)) << "one report was written although another path was bad";
  EXPECT_TRUE(fs::is_empty(folder));
}

// The workload's own output file goes through the same check: `output` naming the run file
// (directly or through a symlink) is refused before any step, and the config survives.
TEST_F(CliHostileInput, AWorkloadOutputNamingItsOwnConfigIsRefused) {
  const std::string config = (folder_ / "self.toml").string();
  const std::string link = (folder_ / "link.toml").string();
  fs::create_symlink(config, link);
  for (const std::string& output : {config, link}) {
    std::string text = kSmallRun;
    text.insert(text.find("[optimizer]"), "output = \"" + output + "\"\n");
    write_file("self.toml", text);
    for (const std::string command : {"run", "ab"}) {
      const auto [said, status] = run(command + " '" + config + "' --repetitions 2");
      EXPECT_NE(said.find("output " + output + ": is the input " + config + "; it would be overwritten"),
                std::string::npos)
          << command << " with output = " << output << "\n" << said;
      EXPECT_TRUE(read_text(config) == text) << "the config was overwritten by " << command;
    }
  }
}

TEST_F(CliHostileInput, ADeviceAsReportPathIsWrittenThroughNotReplaced) {
  const std::string config = write_file("run.toml", kSmallRun);
  const std::string null = (folder_ / "null").string();
  if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  const auto [text, status] = run("run '" + config + "' --json '" + null + "'");
  EXPECT_EQ(status, 0) << text;
  struct stat info {};
  ASSERT_EQ(lstat(null.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode)) << "the device node became a regular file";
  const std::string full = (folder_ / "full").string();
  ASSERT_EQ(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  const auto [full_text, full_status] = run("run '" + config + "' --json '" + full + "'");
  EXPECT_EQ(full_status, 1) << full_text;
  EXPECT_NE(full_text.find("--json " + full + ": write failed: No space left on device"), std::string::npos) << full_text;
}

}  // namespace
