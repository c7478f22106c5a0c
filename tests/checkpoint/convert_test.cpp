// `dopant convert --from megatron --to hf`: each Megatron fixture written by PyTorch 1.13
// (make_megatron_fixtures.py, and the legacy ones of make_legacy_fixtures.py) converts, with both strategies, into a sharded safetensors
// folder that an independent reader (read_safetensors.py) reads back tensor for tensor,
// bit for bit, as the conversion done on the PyTorch side (expected.safetensors); `gather`
// and `stream` write identical files. Bad inputs fail naming the problem, leave no DST and
// no hidden temporary folder, and leave an existing DST untouched.
#include "command_output.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;
using dopant::testing_support::command_output;

const std::string kFixtures = std::string(DOPANT_CHECKPOINT_FIXTURES) + "/megatron/";
const std::string kLegacyFixtures = std::string(DOPANT_CHECKPOINT_FIXTURES) + "/legacy/";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the independent reader prints for a folder or a file: one line per tensor.
std::string independent_read(const fs::path& path) {
  const auto [out, status] =
      command_output(std::string(DOPANT_PYTHON3) + " " + DOPANT_READ_SAFETENSORS + " " + path.string() + " 2>&1");
  EXPECT_EQ(status, 0) << out;
  return out;
}

struct Fixture {
  const char* name;
  const char* model;
};

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("dopant-convert-test-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  // Runs dopant convert; returns (stdout + stderr, exit status).
  std::pair<std::string, int> convert(const std::string& model, const std::string& source, const fs::path& destination,
                                      const std::string& extra) {
    return command_output(std::string(DOPANT_CLI) + " convert --from megatron --to hf --model " + model + " " +
                          extra + " " + source + " " + destination.string() + " 2>&1");
  }

  void expect_both_strategies_give(const std::string& source, const std::string& model, const std::string& flags,
                                   const std::string& expected_file, const std::string& label);

  // Only DST's own folder and what the test made may be in the test folder: no
  // `.NAME.partial-*` or `.NAME.convert-*` left behind.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder_)) {
      if (entry.path().filename().string()[0] == '.') names.push_back(entry.path().filename().string());
    }
    return names;
  }

  fs::path folder_;
};

std::string model_args(const std::string& fixture) {
  std::string text = slurp(kFixtures + fixture + "/args");
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Converts `source` with both strategies into 512-byte shards (so every fixture spans several,
// with an index); each must read back as `expected` (a safetensors file), and gather's files
// must equal stream's byte for byte.
void ConvertTest::expect_both_strategies_give(const std::string& source, const std::string& model,
                                              const std::string& flags, const std::string& expected_file,
                                              const std::string& label) {
  const std::string expected = independent_read(expected_file);
  ASSERT_GT(expected.size(), 100u);
  for (const char* strategy : {"gather", "stream"}) {
    const fs::path out = folder_ / (label + "-" + strategy);
    // --workers is a parameter of `stream` only
    const std::string workers = std::string(strategy) == "stream" ? " --workers 3" : "";
    const auto [log, status] =
        convert(model, source, out, flags + " --max-shard-size 512" + workers + " --strategy " + strategy);
    ASSERT_EQ(status, 0) << log;
    EXPECT_TRUE(fs::exists(out / "model.safetensors.index.json"));
    EXPECT_EQ(independent_read(out), expected) << strategy;
  }
  const fs::path gather = folder_ / (label + "-gather"), stream = folder_ / (label + "-stream");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(gather)) {
    EXPECT_EQ(slurp(entry.path()), slurp(stream / entry.path().filename())) << entry.path().filename();
    ++files;
  }
  EXPECT_EQ(files, static_cast<size_t>(std::distance(fs::directory_iterator(stream), fs::directory_iterator())));
}

TEST_F(ConvertTest, EveryModelMatchesThePyTorchSideConversionWithBothStrategies) {
  const Fixture fixtures[] = {{"llama_stacked", "llama"},     {"llama_layers", "llama"},
                              {"qwen2_stacked", "qwen2"},     {"deepseek_v3", "deepseek-v3"},
                              {"kimi_k2", "kimi-k2"},         {"moe_stacked", "deepseek-v3"}};
  for (const Fixture& f : fixtures) {
    SCOPED_TRACE(f.name);
    expect_both_strategies_give(kFixtures + f.name, f.model, model_args(f.name),
                                kFixtures + f.name + "/expected.safetensors", f.name);
  }
  EXPECT_TRUE(leftovers().empty());
}

// Legacy checkpoints (make_legacy_fixtures.py: TP 2 x PP 2 Qwen2-style; DeepSeek-V3 with EP 2 x
// PP 2 SequentialMLP experts and with EP 2 grouped experts, one tensor per expert), with no
// model flags: heads, query groups and the
// unpadded vocabulary come from the args saved in the checkpoint.
TEST_F(ConvertTest, LegacyCheckpointsMatchThePyTorchSideConversionWithBothStrategies) {
  const Fixture fixtures[] = {{"llama_tp2_pp2", "qwen2"},
                              {"deepseek_v3_ep2_pp2", "deepseek-v3"},
                              {"deepseek_v3_grouped_ep2", "deepseek-v3"}};
  for (const Fixture& f : fixtures) {
    SCOPED_TRACE(f.name);
    expect_both_strategies_give(kLegacyFixtures + f.name, f.model, "", kLegacyFixtures + f.name + ".hf.safetensors",
                                f.name);
  }
  EXPECT_TRUE(leftovers().empty());
}

// A torch_dist checkpoint's args are in its common.pt (qwen2_stacked has one).
TEST_F(ConvertTest, TorchDistModelArgsComeFromCommonPt) {
  const auto [log, status] = convert("qwen2", kFixtures + "qwen2_stacked", folder_ / "out", "");
  ASSERT_EQ(status, 0) << log;
  EXPECT_EQ(independent_read(folder_ / "out"), independent_read(kFixtures + "qwen2_stacked/expected.safetensors"));
}

// Flags win over the checkpoint's args: --vocab-size 15 keeps one more row than the saved
// args.vocab_size (14) of the 16 stored.
TEST_F(ConvertTest, ModelFlagsOverrideTheCheckpointArgs) {
  const auto [log, status] = convert("qwen2", kLegacyFixtures + "llama_tp2_pp2", folder_ / "out", "--vocab-size 15");
  ASSERT_EQ(status, 0) << log;
  const std::string read = independent_read(folder_ / "out");
  EXPECT_NE(read.find("model.embed_tokens.weight BF16 [15, 8]"), std::string::npos) << read;
  EXPECT_NE(read.find("lm_head.weight BF16 [15, 8]"), std::string::npos) << read;
}

TEST_F(ConvertTest, AnIterationFolderIsASourceToo) {
  const auto [log, status] = convert("llama", kFixtures + "llama_layers/iter_0000010", folder_ / "out",
                                     model_args("llama_layers"));
  ASSERT_EQ(status, 0) << log;
  EXPECT_EQ(independent_read(folder_ / "out"), independent_read(kFixtures + "llama_layers/expected.safetensors"));
}

TEST_F(ConvertTest, AnExistingDestinationIsRefusedUnlessForced) {
  const fs::path out = folder_ / "out";
  fs::create_directories(out);
  std::ofstream(out / "keep") << "mine";
  const auto [log, status] = convert("llama", kFixtures + "llama_layers", out, model_args("llama_layers"));
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("already exists (give --force to replace it)"), std::string::npos) << log;
  EXPECT_EQ(slurp(out / "keep"), "mine");

  const auto [forced_log, forced] = convert("llama", kFixtures + "llama_layers", out, model_args("llama_layers") + " --force");
  ASSERT_EQ(forced, 0) << forced_log;
  EXPECT_FALSE(fs::exists(out / "keep"));
  EXPECT_EQ(independent_read(out), independent_read(kFixtures + "llama_layers/expected.safetensors"));
  EXPECT_TRUE(leftovers().empty());
}

// A copy of llama_layers, broken by `damage`, in the test folder.
fs::path broken_copy(const fs::path& folder, void (*damage)(const fs::path& iteration)) {
  const fs::path copy = folder / "source";
  fs::create_directories(folder);
  fs::copy(kFixtures + "llama_layers", copy, fs::copy_options::recursive);
  damage(copy / "iter_0000010");
  return copy;
}

TEST_F(ConvertTest, BadInputsFailClearlyAndLeaveNothing) {
  struct Case {
    const char* what;
    std::string source;
    const char* message;
  };
  const fs::path truncated = broken_copy(folder_ / "t", [](const fs::path& it) {
    fs::resize_file(it / "__0_0.distcp", fs::file_size(it / "__0_0.distcp") / 2);
  });
  const fs::path missing = broken_copy(folder_ / "m", [](const fs::path& it) { fs::remove(it / "__0_0.distcp"); });
  const Case cases[] = {
      {"truncated .distcp", truncated.string(), "outside the file"},
      {"offset past the end", kFixtures + "bad_offset", "outside the file (22687 bytes)"},
      {"missing shard file", missing.string(), "__0_0.distcp"},
      {"duplicate tensor", kFixtures + "bad_duplicate", "(duplicate tensor)"},
      {"dtype mismatch", kFixtures + "bad_dtype", "dtype mismatch: the metadata says float16"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    for (const char* strategy : {"gather", "stream"}) {
      const fs::path out = folder_ / "out";
      const auto [log, status] = convert("llama", c.source, out, model_args("llama_layers") + " --strategy " + strategy);
      EXPECT_EQ(status, 1) << log;
      EXPECT_NE(log.find(c.message), std::string::npos) << log;
      EXPECT_FALSE(fs::exists(out));
      if (std::string(strategy) == "gather") continue;
      // an existing DST, with --force, is untouched by a conversion that fails
      fs::create_directories(out);
      std::ofstream(out / "keep") << "mine";
      const auto [forced_log, forced] =
          convert("llama", c.source, out, model_args("llama_layers") + " --force --strategy " + strategy);
      EXPECT_EQ(forced, 1) << forced_log;
      EXPECT_EQ(slurp(out / "keep"), "mine");
      fs::remove_all(out);
      EXPECT_TRUE(leftovers().empty()) << leftovers().front();
    }
  }
}

TEST_F(ConvertTest, AMissingModelArgumentOrWrongModelIsNamed) {
  auto [log, status] = convert("llama", kFixtures + "llama_layers", folder_ / "out", "--vocab-size 10");
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("needs --heads and --query-groups"), std::string::npos) << log;
  EXPECT_NE(log.find("records no args.num_attention_heads"), std::string::npos) << log;
  std::tie(log, status) = convert("llama", kFixtures + "llama_layers", folder_ / "out", "--heads 4 --query-groups 2");
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("the vocabulary size is not known (give --vocab-size"), std::string::npos) << log;
  std::tie(log, status) = convert("llama", kFixtures + "deepseek_v3", folder_ / "out", "--vocab-size 10");
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("has no Hugging Face counterpart in model llama"), std::string::npos) << log;
  std::tie(log, status) = convert("kimi-k2", kFixtures + "deepseek_v3", folder_ / "out", "--vocab-size 10");
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("is an MTP layer, which model kimi-k2 has none of"), std::string::npos) << log;
  std::tie(log, status) = convert("llama", kFixtures + "llama_layers", folder_ / "out", "--strategy fast");
  EXPECT_EQ(status, 2) << log;
  EXPECT_NE(log.find("--strategy: unknown strategy `fast` (gather, stream)"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(folder_ / "out"));
}

// A strategy is a plugin found by id: one in a folder given by --plugin-path is chosen like
// the built-in ones, gets the model settings as the convert args' strings, and the CLI moves
// its result into place. Without the folder the id is unknown and the loaded ones are listed.
TEST_F(ConvertTest, AStrategyOnThePluginPathIsLoadedById) {
  const std::string path = std::string(" --plugin-path ") + DOPANT_STRATEGY_PLUGIN_DIR;
  const fs::path out = folder_ / "out";
  auto [log, status] = convert("llama", kFixtures + "llama_layers", out, path + " --strategy test-marker --heads 4");
  ASSERT_EQ(status, 0) << log;
  EXPECT_EQ(slurp(out / "marker"), "megatron hf llama heads=4");
  EXPECT_NE(log.find("1 tensors, 1 bytes in 1 files written by `test-marker`"), std::string::npos) << log;
  EXPECT_TRUE(leftovers().empty());

  std::tie(log, status) = convert("llama", kFixtures + "llama_layers", folder_ / "other", "--strategy test-marker");
  EXPECT_EQ(status, 2) << log;
  EXPECT_NE(log.find("--strategy: unknown strategy `test-marker` (gather, stream)"), std::string::npos) << log;
  std::tie(log, status) = convert("llama", kFixtures + "llama_layers", folder_ / "other", path + " --strategy fast");
  EXPECT_NE(log.find("unknown strategy `fast` (gather, stream, test-marker)"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(folder_ / "other"));
}

TEST_F(ConvertTest, AParameterTheStrategyDoesNotDeclareIsRefused) {
  const auto [log, status] =
      convert("llama", kFixtures + "llama_layers", folder_ / "out", model_args("llama_layers") + " --strategy gather --workers 2");
  EXPECT_EQ(status, 1) << log;
  EXPECT_NE(log.find("unknown parameter `workers` for plugin `gather`"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(folder_ / "out"));
  EXPECT_TRUE(leftovers().empty());
}

// A strategy plugin's output lies in the CLI's registered temporary folder, so SIGINT
// mid-conversion removes it with whatever the plugin wrote, though the plugin's own copy
// of the interrupt registry knows nothing of it. The marker strategy says when its output
// is half written.
TEST_F(ConvertTest, AnInterruptedPluginConversionLeavesNothing) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const std::string source = kFixtures + "llama_layers", out = (folder_ / "out").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(ready[1], STDOUT_FILENO);
    close(ready[0]);
    execl(DOPANT_CLI, DOPANT_CLI, "convert", "--plugin-path", DOPANT_STRATEGY_PLUGIN_DIR, "--strategy", "test-marker",
          "--from", "megatron", "--to", "hf", "--model", "wait", source.c_str(), out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  char line[6] = {};
  ASSERT_EQ(read(ready[0], line, 6), 6) << "the strategy did not get ready";
  close(ready[0]);
  EXPECT_EQ(leftovers().size(), 1u) << "the work folder should exist while converting";
  kill(child, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  EXPECT_TRUE(fs::is_empty(folder_)) << "files were left in " << folder_;
}

}  // namespace
