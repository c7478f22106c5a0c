// Plan-file errors: each is one line that starts with file:line:column and names the key.
#include "memory_plan.hpp"
#include "plan_test_support.hpp"

#include <gtest/gtest.h>

namespace dopant::planner {
namespace {

using test::plan_error;
using test::small_plan_with;

void expect_one_line(const std::string& message) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(PlanInputErrors, TheSmallPlanParses) { EXPECT_EQ(plan_error(test::kSmallPlan), ""); }

TEST(PlanInputErrors, UnknownKeySuggestsTheClosestOne) {
  const std::string message = plan_error(small_plan_with("hidden = 64", "hiden = 64"));
  EXPECT_EQ(message, "plan.toml:3:1: unknown key `model.hiden`; did you mean `hidden`?");
}

TEST(PlanInputErrors, UnknownSectionIsRejected) {
  const std::string message = plan_error(std::string(test::kSmallPlan) + "[trainig]\nx = 1\n");
  EXPECT_EQ(message, "plan.toml:17:2: unknown key `trainig`; did you mean `training`?");
}

TEST(PlanInputErrors, WrongTypeNamesKeyAndTypes) {
  const std::string message = plan_error(small_plan_with("hidden = 64", "hidden = \"64\""));
  EXPECT_EQ(message, "plan.toml:3:1: `model.hidden` must be an integer, got string");
}

TEST(PlanInputErrors, TensorParallelMustDivideHeads) {
  const std::string message = plan_error(small_plan_with("gpus = 8\ntp = 2", "gpus = 12\ntp = 3"));
  EXPECT_EQ(message, "plan.toml:10:1: `parallel.tp` = 3 does not divide `model.heads` = 8");
}

TEST(PlanInputErrors, WorldSizeMustBeTheProductOfTheGrid) {
  const std::string message = plan_error(small_plan_with("gpus = 8", "gpus = 16"));
  EXPECT_EQ(message, "plan.toml:9:1: `parallel.gpus` = 16 but tp*pp*dp*cp = 2*2*2*1 = 8");
}

TEST(PlanInputErrors, ChoiceTypoSuggestsTheChoice) {
  const std::string message = plan_error(small_plan_with("\"selective\"", "\"selectve\""));
  EXPECT_EQ(message,
            "plan.toml:16:1: `training.recompute` must be one of `none`, `selective`, `full`, "
            "got `selectve`; did you mean `selective`?");
}

TEST(PlanInputErrors, MissingKeyPointsAtItsTable) {
  const std::string message = plan_error(small_plan_with("heads = 8\n", ""));
  EXPECT_EQ(message, "plan.toml:1:1: missing key `model.heads`");
}

TEST(PlanInputErrors, NegativeCountIsRejected) {
  const std::string message = plan_error(small_plan_with("pp = 2", "pp = -2"));
  EXPECT_EQ(message, "plan.toml:11:1: `parallel.pp` must be at least 1, got -2");
}

TEST(PlanInputErrors, InvalidTomlIsLocated) {
  const std::string message = plan_error(small_plan_with("vocab = 128", "vocab = "));
  EXPECT_EQ(message.rfind("plan.toml:5:", 0), 0u) << message;
  EXPECT_NE(message.find("invalid TOML"), std::string::npos) << message;
  expect_one_line(message);
}

TEST(PlanInputErrors, MlaKeysDoNotApplyToGqa) {
  const std::string message =
      plan_error(std::string(test::kSmallPlan) + "[model.attention]\nkv_lora_rank = 512\n");
  EXPECT_EQ(message.rfind("plan.toml:18:1: `model.attention.kv_lora_rank` does not apply", 0), 0u) << message;
  expect_one_line(message);
}

TEST(PlanInputErrors, ExpertParallelNeedsExperts) {
  const std::string message = plan_error(small_plan_with("dp = 2", "dp = 2\nep = 2"));
  EXPECT_EQ(message, "plan.toml:13:1: `parallel.ep` needs a [model.moe] table");
}

TEST(PlanInputErrors, ExpertParallelMustDivideExperts) {
  const std::string moe = "[model.moe]\nexperts = 6\ntop_k = 2\nexpert_ffn = 32\n";
  const std::string message = plan_error(small_plan_with("dp = 2", "dp = 2\nep = 4") + moe);
  EXPECT_EQ(message, "plan.toml:13:1: `parallel.ep` = 4 does not divide `model.moe.experts` = 6");
}

TEST(PlanInputErrors, SizeWithUnknownUnitIsLocated) {
  const std::string message = plan_error(std::string(test::kSmallPlan) + "[offload]\nchunk = \"256MB2\"\n");
  EXPECT_EQ(message.rfind("plan.toml:18:1: `offload.chunk` is not a size", 0), 0u) << message;
  expect_one_line(message);
}

TEST(PlanInputErrors, AbsurdCountsAreRefusedByName) {
  EXPECT_EQ(plan_error(small_plan_with("context = 32", "context = 4611686018427387904")),
            "plan.toml:15:1: `training.context` must be at most 4294967296, got 4611686018427387904");
  EXPECT_EQ(plan_error(small_plan_with("hidden = 64", "hidden = 1099511627776")),
            "plan.toml:3:1: `model.hidden` must be at most 4294967296, got 1099511627776");
  EXPECT_EQ(plan_error(small_plan_with("layers = 4", "layers = 1099511627776")),
            "plan.toml:2:1: `model.layers` must be at most 1048576, got 1099511627776");
}

TEST(PlanInputErrors, SizesThatPass64BitsAreRefusedNotWrapped) {
  // Each count is allowed alone; their products are not. hidden = 2^32 with 8 heads makes
  // the q projection hidden * heads * head_dim = 2^32 * 8 * 2^29 = 2^64 parameters, which
  // unchecked arithmetic wraps to 0; tp = pp = 2^32 makes the grid tp*pp*dp*cp pass 2^64.
  const PlanInput wide = parse_plan_input(small_plan_with("hidden = 64", "hidden = 4294967296"), "plan.toml");
  EXPECT_THROW(plan_memory(wide), PlanSizeOverflow);
  std::string grid = small_plan_with("tp = 2", "tp = 4294967296");
  grid.replace(grid.find("pp = 2"), 6, "pp = 4294967296");
  const std::string too_large = "the model, parallel and training sizes are too large to plan: a count or byte "
                                "size passes 2^64 - 1 (the largest input is ";
  EXPECT_EQ(plan_error(grid), "plan.toml:10:1: " + too_large + "`parallel.tp` = 4294967296)");
  // `dopant plan memory` turns plan_memory's overflow into the same error, pointing at the
  // largest input, here the hidden size.
  std::string planned;
  try {
    fail_too_large(wide);
  } catch (const PlanError& error) {
    planned = error.what();
  }
  EXPECT_EQ(planned, "plan.toml:3:1: " + too_large + "`model.hidden` = 4294967296)");
}

TEST(PlanInputErrors, EveryMessageIsOneLine) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"hidden = 64", "hiden = 64"}, {"tp = 2", "tp = true"}, {"gpus = 8", "gpus = 9"}}) {
    const std::string message = plan_error(small_plan_with(from, to));
    EXPECT_FALSE(message.empty()) << to;
    expect_one_line(message);
  }
}

TEST(PlanInputErrors, DeepDottedKeysAreRefusedBeforeParsing) {
  // A 50,000-part table header would overflow the stack inside the TOML parser.
  std::string header = "[";
  for (int i = 0; i < 50000; ++i) header += "a.";
  const std::string message = plan_error(std::string(test::kSmallPlan) + header + "a]\n");
  EXPECT_EQ(message, "plan.toml:17:130: key has more than 64 dotted parts");
}

TEST(PlanInputErrors, TextOverTheBoundIsRefused) {
  const std::string text(kMaxTomlInputBytes + 1, '#');
  EXPECT_EQ(plan_error(text), "plan.toml: input of 4194305 bytes is larger than 4 MiB, the most dopant reads");
}

}  // namespace
}  // namespace dopant::planner
