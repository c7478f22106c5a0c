// Valid run files: defaults filled in, variants merged over the base or replacing a slot's
// plugin, variants kept in file order, and loading from disk.
#include "error.hpp"
#include "fake_catalog.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dopant::testing {
namespace {

const VariantConfig& variant(const RunConfig& config, std::string_view name) {
  for (const auto& candidate : config.variants) {
    if (candidate.name == name) return candidate;
  }
  throw std::runtime_error("no variant " + std::string(name));
}

constexpr const char* kDesignExample =
    "[run]\n"
    "workload = \"optimizer-step\"\n"
    "repetitions = 5\n"
    "\n"
    "[device]\n"
    "kind = \"cuda\"\n"
    "memory_limit = \"6GiB\"\n"
    "\n"
    "[workload]\n"
    "params = \"400M\"\n"
    "dtype = \"bf16\"\n"
    "\n"
    "[optimizer]\n"
    "plugin = \"adamw\"\n"
    "lr = 1e-4\n"
    "\n"
    "[variants.offload.optimizer]\n"
    "plugin = \"adamw-chunked-offload\"\n"
    "chunk = \"256MiB\"\n"
    "\n"
    "[variants.decay.optimizer]\n"
    "weight_decay = 0.1\n"
    "\n"
    "[variants.decay.device]\n"
    "index = 1\n";

TEST(RunConfig, ReadsTheBaseAndFillsDefaults) {
  const RunConfig config = parse(kDesignExample);
  EXPECT_EQ(config.source, "run.toml");
  EXPECT_EQ(config.workload, "optimizer-step");
  EXPECT_EQ(config.repetitions, 5u);
  ASSERT_EQ(config.variants.size(), 3u);
  const VariantConfig& base = config.variants[0];
  EXPECT_EQ(base.name, "base");
  EXPECT_EQ(base.device.kind, "cuda");
  EXPECT_EQ(base.device.index, 0);
  EXPECT_EQ(base.device.memory_limit, 6ull << 30);

  EXPECT_EQ(base.workload_params.owner, "optimizer-step");
  EXPECT_EQ(base.workload_params.values.size(), 3u);
  EXPECT_EQ(base.workload_params.values.at("params").size, 400000000ull);
  EXPECT_EQ(base.workload_params.values.at("dtype").text, "bf16");
  EXPECT_EQ(base.workload_params.values.at("steps").integer, 3);  // default

  ASSERT_EQ(base.slots.size(), 1u);
  const SlotConfig& optimizer = base.slots.at("optimizer");
  EXPECT_EQ(optimizer.plugin, "adamw");
  EXPECT_EQ(optimizer.params.owner, "adamw");
  EXPECT_EQ(optimizer.params.values.size(), 3u);
  EXPECT_EQ(optimizer.params.values.at("lr").real, 1e-4);
  EXPECT_EQ(optimizer.params.values.at("weight_decay").real, 0.01);  // default
  EXPECT_FALSE(optimizer.params.values.at("fused").boolean);           // default
}

TEST(RunConfig, MinimalFileGetsEveryDefault) {
  const RunConfig config = parse("[run]\nworkload = \"moe-routing\"\n");
  EXPECT_EQ(config.repetitions, 7u);
  ASSERT_EQ(config.variants.size(), 1u);
  EXPECT_EQ(config.variants[0].device.kind, "cpu");
  EXPECT_EQ(config.variants[0].device.index, 0);
  EXPECT_EQ(config.variants[0].device.memory_limit, 0u);
  EXPECT_TRUE(config.variants[0].slots.empty());
}

TEST(RunConfig, VariantNamingAnotherPluginStartsFromItsDefaults) {
  const RunConfig config = parse(kDesignExample);
  const VariantConfig& offload = variant(config, "offload");
  const SlotConfig& optimizer = offload.slots.at("optimizer");
  EXPECT_EQ(optimizer.plugin, "adamw-chunked-offload");
  EXPECT_EQ(optimizer.params.owner, "adamw-chunked-offload");
  EXPECT_EQ(optimizer.params.values.size(), 4u);
  EXPECT_EQ(optimizer.params.values.at("chunk").size, 256ull << 20);
  EXPECT_EQ(optimizer.params.values.at("lr").real, 1e-3);  // the plugin's default, not the base's 1e-4
  EXPECT_EQ(optimizer.params.values.at("slots").integer, 2);
  EXPECT_EQ(optimizer.params.values.count("weight_decay"), 0u);
  // Everything the variant does not touch is the base's.
  EXPECT_EQ(offload.device.kind, "cuda");
  EXPECT_EQ(offload.device.memory_limit, 6ull << 30);
  EXPECT_EQ(offload.workload_params.values.at("dtype").text, "bf16");
}

TEST(RunConfig, VariantKeepingThePluginMergesOverTheBase) {
  const RunConfig config = parse(kDesignExample);
  const VariantConfig& decay = variant(config, "decay");
  const SlotConfig& optimizer = decay.slots.at("optimizer");
  EXPECT_EQ(optimizer.plugin, "adamw");
  EXPECT_EQ(optimizer.params.values.at("weight_decay").real, 0.1);
  EXPECT_EQ(optimizer.params.values.at("lr").real, 1e-4);  // kept from the base
  EXPECT_EQ(decay.device.index, 1);
  EXPECT_EQ(decay.device.kind, "cuda");  // merged: only index changed
}

TEST(RunConfig, VariantRepeatingThePluginAlsoMerges) {
  const RunConfig config = parse("[run]\nworkload = \"optimizer-step\"\n"
                                 "[optimizer]\nplugin = \"adamw\"\nlr = 0.5\n"
                                 "[variants.fused.optimizer]\nplugin = \"adamw\"\nfused = true\n");
  const SlotConfig& optimizer = variant(config, "fused").slots.at("optimizer");
  EXPECT_TRUE(optimizer.params.values.at("fused").boolean);
  EXPECT_EQ(optimizer.params.values.at("lr").real, 0.5);
  EXPECT_FALSE(config.variants[0].slots.at("optimizer").params.values.at("fused").boolean);
}

TEST(RunConfig, VariantsKeepFileOrder) {
  const RunConfig config = parse("[run]\nworkload = \"moe-routing\"\n"
                                 "[variants.zeta.device]\nindex = 1\n"
                                 "[variants.alpha.device]\nindex = 2\n"
                                 "[variants.mid.device]\nindex = 3\n");
  ASSERT_EQ(config.variants.size(), 4u);
  EXPECT_EQ(config.variants[0].name, "base");
  EXPECT_EQ(config.variants[1].name, "zeta");
  EXPECT_EQ(config.variants[2].name, "alpha");
  EXPECT_EQ(config.variants[3].name, "mid");
  EXPECT_EQ(config.variants[1].device.index, 1);
  EXPECT_EQ(config.variants[2].device.index, 2);
  EXPECT_EQ(config.variants[3].device.index, 3);
}

TEST(RunConfig, SizesAcceptIntegersAndStrings) {
  const RunConfig config = parse("[run]\nworkload = \"optimizer-step\"\n"
                                 "[workload]\nparams = 4096\n"
                                 "[optimizer]\nplugin = \"adamw-chunked-offload\"\nchunk = \"1.5GiB\"\n");
  EXPECT_EQ(config.variants[0].workload_params.values.at("params").size, 4096u);
  EXPECT_EQ(config.variants[0].slots.at("optimizer").params.values.at("chunk").size, 3ull << 29);
}

TEST(RunConfig, FloatsAcceptIntegers) {
  const RunConfig config = parse("[run]\nworkload = \"optimizer-step\"\n"
                                 "[optimizer]\nplugin = \"adamw\"\nlr = 1\n");
  EXPECT_EQ(config.variants[0].slots.at("optimizer").params.values.at("lr").real, 1.0);
}

TEST(RunConfig, LoadsFromDisk) {
  const std::string path = ::testing::TempDir() + "dopant_config_test_run.toml";
  std::ofstream(path) << kDesignExample;
  const RunConfig config = load_run_config(path, fake_catalog());
  EXPECT_EQ(config.source, path);
  EXPECT_EQ(config.variants.size(), 3u);
  std::ofstream(path) << "[run]\nworkload = 3\n";
  try {
    load_run_config(path, fake_catalog());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), path + ":2:12: key `workload` in `[run]`: expected string, got integer");
  }
  std::remove(path.c_str());
}

TEST(RunConfig, MissingFileIsNotFound) {
  const std::string path = ::testing::TempDir() + "dopant_config_test_missing.toml";
  try {
    load_run_config(path, fake_catalog());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), DPT_NOT_FOUND);
    EXPECT_EQ(std::string(error.what()), path + ": cannot read file: No such file or directory");
  }
}

}  // namespace
}  // namespace dopant::testing
