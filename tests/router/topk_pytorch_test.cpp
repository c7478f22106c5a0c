// The topk rule against PyTorch: fixtures/topk_fixture.bin holds routing computed by
// re-statements of Hugging Face's DeepSeek-V3 gate (noaux_tc: sigmoid, bias, 8 groups of
// 32 experts with 4 kept, top-8) and Mixtral's softmax top-k, with Kimi-K2 and Qwen-MoE
// shapes and bf16 logits (regenerate with fixtures/make_topk_fixture.py).
// Both implementations must give PyTorch's ids exactly and its weights to 1e-6.
#include "topk_fixture_file.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dopant::router_tests {
namespace {

using topk_kernels::RouteData;

class TopkPytorch : public testing::TestWithParam<bool> {};  // true: the fast path

TEST_P(TopkPytorch, IdsExactWeightsWithin1e6) {
  const std::vector<TopkFixtureCase> cases = read_topk_fixture(DOPANT_TOPK_FIXTURE);
  ASSERT_EQ(cases.size(), 5u);
  for (const TopkFixtureCase& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_GT(c.tokens, 0);
    std::vector<int32_t> ids(c.ids.size(), -1);       // [tokens, top_k] int32
    std::vector<float> weights(c.weights.size(), NAN);  // [tokens, top_k] fp32
    RouteData data;
    data.logits = c.logits();
    data.logits_type = c.logits_type;
    data.tokens = c.tokens;
    data.experts = c.experts;
    data.bias = c.bias.empty() ? nullptr : c.bias.data();
    data.ids = ids.data();
    data.weights = weights.data();
    topk_kernels::check_rule(c.rule, c.experts);
    if (GetParam()) {
      topk_kernels::route_fast(c.rule, data, 0, c.tokens);
    } else {
      topk_kernels::route_reference(c.rule, data);
    }
    EXPECT_EQ(ids, c.ids);
    for (size_t i = 0; i < weights.size(); ++i) {
      EXPECT_NEAR(weights[i], c.weights[i], 1e-6) << "token " << i / c.rule.top_k << ", slot " << i % c.rule.top_k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Implementations, TopkPytorch, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "fast" : "reference"; });

}  // namespace
}  // namespace dopant::router_tests
