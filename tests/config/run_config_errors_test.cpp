// Run files with mistakes: each problem is one line "run.toml:LINE:COLUMN: text" pointing at
// the offending key or value, with a suggestion where one is likely.
#include "fake_catalog.hpp"

#include <gtest/gtest.h>

namespace dopant::testing {
namespace {

TEST(RunConfigErrors, MalformedToml) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "repetitions = = 3\n"),
            "run.toml:3:15: invalid TOML: Error while parsing value: could not determine value type");
}

TEST(RunConfigErrors, UnknownSlot) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"moe-routing\"\n"
                        "\n"
                        "[routr]\n"
                        "plugin = \"topk\"\n"),
            "run.toml:4:2: unknown table `routr`; did you mean `router`?");
}

TEST(RunConfigErrors, UnknownPluginWithSuggestion) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[optimizer]\n"
                        "plugin = \"adamv\"\n"),
            "run.toml:4:10: unknown plugin `adamv` for slot `optimizer`; did you mean `adamw`?");
}

TEST(RunConfigErrors, UnknownParameterWithSuggestion) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[optimizer]\n"
                        "plugin = \"adamw-chunked-offload\"\n"
                        "chunk_mib = 256\n"),
            "run.toml:5:1: unknown parameter `chunk_mib` for plugin `adamw-chunked-offload`; did you "
            "mean `chunk`?");
}

TEST(RunConfigErrors, WrongType) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[optimizer]\n"
                        "plugin = \"adamw\"\n"
                        "lr = \"fast\"\n"
                        "fused = 1\n"),
            "run.toml:5:6: parameter `lr` for plugin `adamw`: expected float, got string\n"
            "run.toml:6:9: parameter `fused` for plugin `adamw`: expected bool, got integer");
}

TEST(RunConfigErrors, ValueOutOfRange) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "repetitions = 0\n"
                        "[optimizer]\n"
                        "plugin = \"adamw-chunked-offload\"\n"
                        "slots = 9\n"
                        "chunk = \"5GiB\"\n"),
            "run.toml:3:15: key `repetitions` in `[run]`: must be >= 1, got 0\n"
            "run.toml:6:9: parameter `slots` for plugin `adamw-chunked-offload`: must be <= 8, got 9\n"
            "run.toml:7:9: parameter `chunk` for plugin `adamw-chunked-offload`: must be <= 4GiB, got 5GiB");
}

TEST(RunConfigErrors, BadSizeUnit) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"moe-routing\"\n"
                        "[device]\n"
                        "memory_limit = \"6Gib\"\n"),
            "run.toml:4:16: key `memory_limit` in `[device]`: unknown size unit `Gib`; did you mean "
            "`GiB`? (units: B, K, M, G, T, P, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)");
}

TEST(RunConfigErrors, VariantOverridingMissingSlot) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"moe-routing\"\n"
                        "\n"
                        "[variants.topk4.router]\n"
                        "plugin = \"topk\"\n"
                        "k = 4\n"),
            "run.toml:4:17: variant `topk4` overrides slot `router`, which the base configuration "
            "does not set");
}

TEST(RunConfigErrors, EnumSuggestsAChoice) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[workload]\n"
                        "dtype = \"bf61\"\n"
                        "[optimizer]\n"
                        "plugin = \"adamw\"\n"),
            "run.toml:4:9: parameter `dtype` for workload `optimizer-step`: must be one of `fp32`, "
            "`bf16`, `fp16`, got `bf61`; did you mean `bf16`?");
}

TEST(RunConfigErrors, PluginOfAnotherKind) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[optimizer]\n"
                        "plugin = \"topk\"\n"),
            "run.toml:4:10: plugin `topk` is of kind `dopant.router/1`, but slot `optimizer` needs "
            "`dopant.optimizer/1`");
}

TEST(RunConfigErrors, UnknownWorkloadAndMissingRequiredSlot) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimiser-step\"\n"),
            "run.toml:2:12: unknown workload `optimiser-step`; did you mean `optimizer-step`?");
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"),
            "run.toml:2:12: workload `optimizer-step` needs slot `optimizer`: add a `[optimizer]` "
            "table with `plugin = \"...\"`");
}

TEST(RunConfigErrors, MissingRunAndPlugin) {
  EXPECT_EQ(parse_error("[device]\nkind = \"cpu\"\n"), "run.toml:1:1: missing table `[run]` naming the workload");
  EXPECT_EQ(parse_error("[run]\nrepetitions = 3\n"), "run.toml:1:1: missing key `workload` in `[run]`");
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "[optimizer]\n"
                        "lr = 0.1\n"),
            "run.toml:3:2: missing key `plugin` in `[optimizer]`: name the `dopant.optimizer/1` plugin "
            "for this slot");
}

TEST(RunConfigErrors, TablesOfTheWrongShape) {
  EXPECT_EQ(parse_error("device = \"cuda\"\n"
                        "[run]\n"
                        "workload = \"moe-routing\"\n"
                        "[variants]\n"
                        "fast = 1\n"
                        "[variants.base.device]\n"
                        "kind = \"cpu\"\n"
                        "[variants.slow.run]\n"
                        "repetitions = 1\n"),
            "run.toml:1:10: `[device]` must be a table, got string\n"
            "run.toml:5:8: `[variants.fast]` must be a table, got integer\n"
            "run.toml:6:11: variant name `base` is reserved or empty\n"
            "run.toml:8:16: unknown table `run` in variant `slow`");
}

// Every problem of the file at once, in file order, one per line.
TEST(RunConfigErrors, ReportsEveryProblemTogether) {
  EXPECT_EQ(parse_error("[run]\n"
                        "workload = \"optimizer-step\"\n"
                        "\n"
                        "[device]\n"
                        "kind = \"cdua\"\n"
                        "\n"
                        "[workload]\n"
                        "stepz = 3\n"
                        "\n"
                        "[optimizer]\n"
                        "plugin = \"adamw-chunked-offload\"\n"
                        "lr = 2.0\n"
                        "chunk_mib = 256\n"
                        "\n"
                        "[variants.offload.optimizer]\n"
                        "plugin = \"adamw\"\n"
                        "lrr = 1\n"),
            "run.toml:5:8: key `kind` in `[device]`: must be one of `cpu`, `cuda`, got `cdua`; did you "
            "mean `cuda`?\n"
            "run.toml:8:1: unknown parameter `stepz` for workload `optimizer-step`; did you mean `steps`?\n"
            "run.toml:12:6: parameter `lr` for plugin `adamw-chunked-offload`: must be <= 1, got 2\n"
            "run.toml:13:1: unknown parameter `chunk_mib` for plugin `adamw-chunked-offload`; did you "
            "mean `chunk`?\n"
            "run.toml:17:1: unknown parameter `lrr` for plugin `adamw`; did you mean `lr`?");
}

}  // namespace
}  // namespace dopant::testing
