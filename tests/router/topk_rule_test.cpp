// The topk rule on cases small enough to work out by hand: ties go to the lower index
// (experts and groups), group limiting drops the best expert of a weak group, the bias
// moves the selection but not the weights, normalization and scaling; the load count; and
// the errors, each naming the parameter, token or slot at fault. Every case runs on both
// implementations.
#include <dopant/sdk/errors.hpp>
#include <dopant/topk_kernels/routing.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace dopant::router_tests {
namespace {

namespace kernels = topk_kernels;

struct Routed {
  std::vector<int32_t> ids;    // [tokens, top_k] int32
  std::vector<float> weights;  // [tokens, top_k] fp32
};

class TopkRule : public testing::TestWithParam<bool> {  // true: the fast path
 protected:
  // Routes fp32 `logits` ([tokens, experts]) with `rule`.
  Routed route(const kernels::RoutingRule& rule, const std::vector<float>& logits, int64_t experts,
               const std::vector<float>& bias = {}, const std::vector<int32_t>& recorded = {}) const {
    const int64_t tokens = static_cast<int64_t>(logits.size()) / experts;
    Routed out{std::vector<int32_t>(tokens * rule.top_k, -1), std::vector<float>(tokens * rule.top_k, NAN)};
    kernels::RouteData data;
    data.logits = logits.data();
    data.tokens = tokens;
    data.experts = experts;
    data.bias = bias.empty() ? nullptr : bias.data();
    data.recorded = recorded.empty() ? nullptr : recorded.data();
    data.ids = out.ids.data();
    data.weights = out.weights.data();
    kernels::check_rule(rule, experts);
    if (GetParam()) {
      kernels::route_fast(rule, data, 0, tokens);
    } else {
      kernels::route_reference(rule, data);
    }
    return out;
  }
  // The message of the sdk::Error `body` throws ("" if none).
  template <typename Body>
  static std::string error_of(Body&& body) {
    try {
      body();
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), DPT_INVALID_ARGUMENT);
      return e.what();
    }
    return "";
  }
};

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST_P(TopkRule, EqualScoresGoToTheLowerExpertIndex) {
  const kernels::RoutingRule rule{kernels::Scoring::softmax, 3, true, 1, 1, 1.0f};
  const Routed out = route(rule, std::vector<float>(8, 0.7f), 8);
  EXPECT_EQ(out.ids, (std::vector<int32_t>{0, 1, 2}));
  // softmax of 8 equal logits is 1/8 each; renormalized over 3: (1/8) / (3/8 + 1e-20)
  for (float w : out.weights) EXPECT_EQ(w, 0.125f / (0.375f + 1e-20f));
}

TEST_P(TopkRule, EqualGroupScoresGoToTheLowerGroupIndex) {
  // 4 groups of 2; groups 1 and 3 tie for the best sum of top-2, one group is kept.
  const kernels::RoutingRule rule{kernels::Scoring::sigmoid, 2, false, 4, 1, 1.0f};
  const Routed out = route(rule, {0.0f, 0.0f, 2.0f, 1.0f, -1.0f, 0.0f, 1.0f, 2.0f}, 8);
  EXPECT_EQ(out.ids, (std::vector<int32_t>{2, 3}));
}

TEST_P(TopkRule, GroupLimitingDropsTheBestExpertOfAWeakGroup) {
  // Group sums of sigmoids: g0 = s(3) + s(-3) = 1.0, g1 = 2 s(1) = 1.46, g2 = 2 s(0.5) = 1.25,
  // g3 = 2 s(-1) = 0.54. Groups 1 and 2 stay; expert 0, the best alone, is not selectable.
  const kernels::RoutingRule rule{kernels::Scoring::sigmoid, 2, false, 4, 2, 1.0f};
  const Routed out = route(rule, {3.0f, -3.0f, 1.0f, 1.0f, 0.5f, 0.5f, -1.0f, -1.0f}, 8);
  EXPECT_EQ(out.ids, (std::vector<int32_t>{2, 3}));
  EXPECT_FLOAT_EQ(out.weights[0], sigmoid(1.0f));
  EXPECT_FLOAT_EQ(out.weights[1], sigmoid(1.0f));
}

TEST_P(TopkRule, BiasMovesTheSelectionNotTheWeights) {
  // choice = s(x) + bias = [0.731, 0.711, 1.0, 0.269]: expert 2 first, then expert 0.
  const kernels::RoutingRule rule{kernels::Scoring::sigmoid, 2, true, 1, 1, 2.0f};
  const Routed out = route(rule, {1.0f, 0.9f, 0.0f, -1.0f}, 4, {0.0f, 0.0f, 0.5f, 0.0f});
  EXPECT_EQ(out.ids, (std::vector<int32_t>{2, 0}));
  const float total = sigmoid(0.0f) + sigmoid(1.0f);
  EXPECT_FLOAT_EQ(out.weights[0], sigmoid(0.0f) / total * 2.0f);
  EXPECT_FLOAT_EQ(out.weights[1], sigmoid(1.0f) / total * 2.0f);
}

TEST_P(TopkRule, RecordedIdsKeepTheirOrderAndTakeThisCallsScores) {
  const kernels::RoutingRule rule{kernels::Scoring::softmax, 2, false, 1, 1, 1.0f};
  const std::vector<float> logits = {0.0f, std::log(3.0f), 0.0f, 0.0f};  // softmax: 1/6, 1/2, 1/6, 1/6
  const Routed out = route(rule, logits, 4, {}, {3, 1});
  EXPECT_EQ(out.ids, (std::vector<int32_t>{3, 1}));
  EXPECT_FLOAT_EQ(out.weights[0], 1.0f / 6.0f);
  EXPECT_FLOAT_EQ(out.weights[1], 0.5f);
}

TEST_P(TopkRule, BadRowsAreRefusedNamingTokenAndSlot) {
  const kernels::RoutingRule rule{kernels::Scoring::softmax, 2, false, 1, 1, 1.0f};
  EXPECT_NE(error_of([&] { route(rule, {0, 0, 0, 0, 0, 0, NAN, 0}, 4); }).find("logits: token 1, expert 2"),
            std::string::npos);
  const std::vector<float> logits(8, 0.0f);
  const std::string out_of_range = error_of([&] { route(rule, logits, 4, {}, {0, 1, 2, 4}); });
  EXPECT_NE(out_of_range.find("recorded_ids: token 1, slot 1: expert 4 is outside [0, 4)"), std::string::npos)
      << out_of_range;
  const std::string repeated = error_of([&] { route(rule, logits, 4, {}, {2, 2, 0, 1}); });
  EXPECT_NE(repeated.find("recorded_ids: token 0, slot 1: expert 2 repeats"), std::string::npos) << repeated;
}

INSTANTIATE_TEST_SUITE_P(Implementations, TopkRule, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "fast" : "reference"; });

TEST(TopkRuleCheck, EachProblemNamesItsParameter) {
  const auto message = [](kernels::RoutingRule rule, int64_t experts) {
    try {
      kernels::check_rule(rule, experts);
    } catch (const sdk::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  using kernels::Scoring;
  EXPECT_EQ(message({Scoring::sigmoid, 8, true, 8, 4, 2.5f}, 256), "");
  EXPECT_EQ(message({Scoring::softmax, 9, false, 1, 1, 1.0f}, 8).rfind("top_k 9 must lie in [1, 8]", 0), 0u);
  EXPECT_EQ(message({Scoring::sigmoid, 8, false, 3, 1, 1.0f}, 256).rfind("n_group 3 must divide 256", 0), 0u);
  EXPECT_EQ(message({Scoring::sigmoid, 1, false, 8, 1, 1.0f}, 8).rfind("n_group 8 leaves fewer than 2", 0), 0u);
  EXPECT_EQ(message({Scoring::sigmoid, 2, false, 4, 5, 1.0f}, 16).rfind("topk_group 5 must lie in", 0), 0u);
  EXPECT_EQ(message({Scoring::sigmoid, 9, false, 8, 2, 1.0f}, 32).rfind("top_k 9 is more than the 8 experts", 0), 0u);
  EXPECT_EQ(message({Scoring::sigmoid, 2, false, 1, 1, 0.0f}, 8).rfind("routed_scaling_factor", 0), 0u);
}

TEST(TopkLoad, CountsEachExpert) {
  const std::vector<int32_t> ids = {0, 3, 3, 1, 0, 3};  // [3 tokens, top-2] int32
  std::vector<int64_t> load(5, -1);
  kernels::count_load(ids.data(), static_cast<int64_t>(ids.size()), 5, load.data());
  EXPECT_EQ(load, (std::vector<int64_t>{2, 1, 0, 3, 0}));
}

}  // namespace
}  // namespace dopant::router_tests
