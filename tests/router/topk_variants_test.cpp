// route_fast against route_reference: the same ids and the same weight bits, for any split
// of the tokens, on random logits and on edge shapes: many exact ties, one expert, top_k
// equal to the expert count, no tokens, bf16 logits, groups with a bias, recorded ids.
#include <dopant/sdk/float16.hpp>
#include <dopant/topk_kernels/routing.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

namespace dopant::router_tests {
namespace {

namespace kernels = topk_kernels;

struct Shape {
  const char* name;
  kernels::RoutingRule rule;
  int64_t tokens;
  int64_t experts;
  bool bf16 = false;
  bool bias = false;
  bool recorded = false;
  float levels = 0.0f;  // > 0: logits drawn from {0, 1, ..., levels} / 4, so ties abound
};

kernels::RoutingRule rule(kernels::Scoring scoring, uint32_t top_k, uint32_t n_group = 1,
                          uint32_t topk_group = 1, bool norm = false, float scale = 1.0f) {
  return {scoring, top_k, norm, n_group, topk_group, scale};
}

constexpr auto kSoftmax = kernels::Scoring::softmax;
constexpr auto kSigmoid = kernels::Scoring::sigmoid;

const Shape kShapes[] = {
    {"softmax_64x8", rule(kSoftmax, 8), 301, 64},
    {"softmax_norm", rule(kSoftmax, 2, 1, 1, true), 200, 8},
    {"sigmoid_groups_bias", rule(kSigmoid, 8, 8, 4, true, 2.5f), 150, 256, false, true},
    {"sigmoid_kimi", rule(kSigmoid, 8, 1, 1, true, 2.827f), 70, 384, false, true},
    {"ties_softmax", rule(kSoftmax, 4), 120, 16, false, false, false, 2.0f},
    {"ties_groups", rule(kSigmoid, 6, 4, 2, true), 120, 32, false, true, false, 1.0f},
    {"one_expert", rule(kSoftmax, 1), 33, 1},
    {"one_expert_sigmoid", rule(kSigmoid, 1, 1, 1, true), 33, 1},
    {"top_k_all", rule(kSigmoid, 8, 4, 4), 40, 8},
    {"no_tokens", rule(kSigmoid, 8, 8, 4), 0, 256, false, true},
    {"bf16", rule(kSigmoid, 8, 8, 4, true, 2.5f), 90, 256, true, true},
    {"bf16_ties", rule(kSoftmax, 2, 1, 1, true), 90, 8, true, false, false, 3.0f},
    {"recorded", rule(kSigmoid, 8, 8, 4, true, 2.5f), 64, 256, false, true, true},
};

void PrintTo(const Shape& shape, std::ostream* out) { *out << shape.name; }

// The inputs of one shape, drawn from a seeded generator.
struct Inputs {
  std::vector<float> logits;           // [tokens, experts] fp32
  std::vector<uint16_t> logits_bf16;   // [tokens, experts] bf16, when the shape asks
  std::vector<float> bias;             // [experts] fp32
  std::vector<int32_t> recorded;       // [tokens, top_k] int32
};

Inputs draw(const Shape& s) {
  std::mt19937 random(1234);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::uniform_int_distribution<int> level(0, static_cast<int>(s.levels));
  Inputs in;
  for (int64_t i = 0; i < s.tokens * s.experts; ++i) {
    in.logits.push_back(s.levels > 0 ? static_cast<float>(level(random)) / 4.0f : normal(random));
  }
  if (s.bf16) {
    for (float& x : in.logits) in.logits_bf16.push_back(sdk::float_to_bf16(x));
  }
  std::uniform_real_distribution<float> small(-0.01f, 0.01f);
  for (int64_t e = 0; s.bias && e < s.experts; ++e) in.bias.push_back(s.levels > 0 ? 0.0f : small(random));
  for (int64_t t = 0; s.recorded && t < s.tokens; ++t) {
    std::vector<int32_t> all(static_cast<size_t>(s.experts));
    for (int64_t e = 0; e < s.experts; ++e) all[e] = static_cast<int32_t>(e);
    std::shuffle(all.begin(), all.end(), random);
    in.recorded.insert(in.recorded.end(), all.begin(), all.begin() + s.rule.top_k);
  }
  return in;
}

struct Outputs {
  std::vector<int32_t> ids;    // [tokens, top_k] int32
  std::vector<float> weights;  // [tokens, top_k] fp32
};

kernels::RouteData data_for(const Shape& s, const Inputs& in, Outputs& out) {
  out.ids.assign(static_cast<size_t>(s.tokens) * s.rule.top_k, -1);
  out.weights.assign(out.ids.size(), NAN);
  kernels::RouteData data;
  data.logits = s.bf16 ? static_cast<const void*>(in.logits_bf16.data()) : in.logits.data();
  data.logits_type = s.bf16 ? kernels::LogitsType::bf16 : kernels::LogitsType::f32;
  data.tokens = s.tokens;
  data.experts = s.experts;
  data.bias = s.bias ? in.bias.data() : nullptr;
  data.recorded = s.recorded ? in.recorded.data() : nullptr;
  data.ids = out.ids.data();
  data.weights = out.weights.data();
  return data;
}

class TopkVariants : public testing::TestWithParam<Shape> {};

TEST_P(TopkVariants, FastGivesTheReferenceIdsAndWeightBits) {
  const Shape& s = GetParam();
  kernels::check_rule(s.rule, s.experts);
  const Inputs in = draw(s);
  Outputs reference;
  kernels::route_reference(s.rule, data_for(s, in, reference));
  if (s.recorded) {
    EXPECT_EQ(reference.ids, in.recorded);
  }
  // Splits: all tokens at once, one at a time, and uneven thirds.
  const std::vector<std::vector<int64_t>> splits = {
      {0, s.tokens}, {}, {0, s.tokens / 3, std::min(s.tokens, s.tokens / 3 + 1), s.tokens}};
  for (size_t which = 0; which < splits.size(); ++which) {
    std::vector<int64_t> cuts = splits[which];
    if (cuts.empty()) {
      for (int64_t t = 0; t <= s.tokens; ++t) cuts.push_back(t);
    }
    Outputs fast;
    const kernels::RouteData data = data_for(s, in, fast);
    for (size_t i = 0; i + 1 < cuts.size(); ++i) kernels::route_fast(s.rule, data, cuts[i], cuts[i + 1]);
    EXPECT_EQ(fast.ids, reference.ids) << "split " << which;
    EXPECT_TRUE(fast.weights.empty() ||
                std::memcmp(fast.weights.data(), reference.weights.data(), fast.weights.size() * sizeof(float)) == 0)
        << "split " << which << ": weight bits differ";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TopkVariants, testing::ValuesIn(kShapes),
                         [](const testing::TestParamInfo<Shape>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dopant::router_tests
