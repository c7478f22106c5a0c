// Activation terms of an MLA + MoE layer (the Kimi-K2 example: 65536 tokens over cp 8, so
// T = 8192 tokens per GPU, tp 1, top-8 of 384 experts, one shared expert), by hand.
#include "memory_plan.hpp"
#include "plan_input_toml.hpp"
#include "plan_test_support.hpp"

#include <gtest/gtest.h>

namespace dopant::planner {
namespace {

constexpr uint64_t T = 8192, h = 7168, heads = 64, experts = 384, top_k = 8, expert_ffn = 2048;

PlanInput kimi_input() { return load_plan_input(test::example_path("kimi-k2-64xh200.toml")); }

uint64_t term_bytes(const std::vector<ActivationTerm>& terms, const std::string& name) {
  for (const auto& term : terms) {
    if (term.name == name) return term.bytes;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

// Terms selective recompute drops: both norm outputs, MLA q/k/v, both SwiGLU outputs.
constexpr uint64_t kSelectiveDrops =
    2 * (2 * T * h) + 2 * T * heads * (2 * 192 + 128) + 2 * (T * top_k) * expert_ffn + 2 * T * expert_ffn;

TEST(MoeActivation, EveryTermOfAnMlaMoeLayer) {
  const auto terms = layer_activation_terms(kimi_input(), true);
  EXPECT_EQ(term_bytes(terms, "attention norm input (residual)"), 2 * T * h);
  EXPECT_EQ(term_bytes(terms, "q latent (q norm input)"), 2 * T * 1536);
  EXPECT_EQ(term_bytes(terms, "kv latent normed (kv up-projection input)"), 2 * T * 512);
  EXPECT_EQ(term_bytes(terms, "q, k, v (MLA up-projection outputs)"), 2 * T * heads * (192 + 192 + 128));
  EXPECT_EQ(term_bytes(terms, "attention output (o-projection input)"), 2 * T * heads * 128);
  EXPECT_EQ(term_bytes(terms, "softmax log-sum-exp (fp32)"), 4 * T * heads);
  EXPECT_EQ(term_bytes(terms, "router scores (fp32)"), 4 * T * experts);
  EXPECT_EQ(term_bytes(terms, "dispatched tokens (expert input)"), 2 * (T * top_k) * h);
  EXPECT_EQ(term_bytes(terms, "expert gate/up output (SwiGLU input)"), 2 * (T * top_k) * 2 * expert_ffn);
  EXPECT_EQ(term_bytes(terms, "expert outputs (combine input)"), 2 * (T * top_k) * h);
  EXPECT_EQ(term_bytes(terms, "shared expert SwiGLU output (down-projection input)"), 2 * T * expert_ffn);
}

TEST(MoeActivation, LayerTotalsPerRecomputeMode) {
  const PlanInput input = kimi_input();
  EXPECT_EQ(layer_activation_bytes(input, true, Recompute::None), 4007657472u);
  EXPECT_EQ(layer_activation_bytes(input, true, Recompute::Selective), 4007657472u - kSelectiveDrops);
  EXPECT_EQ(layer_activation_bytes(input, true, Recompute::Full), 2 * T * h);
}

TEST(MoeActivation, TensorParallelWithSequenceParallelSplitsRoutedTokens) {
  PlanInput input = kimi_input();
  input.parallel.tp = 2;
  input.parallel.sequence_parallel = true;
  const auto terms = layer_activation_terms(input, true);
  EXPECT_EQ(term_bytes(terms, "dispatched tokens (expert input)"), 2 * (T * top_k / 2) * h);
  EXPECT_EQ(term_bytes(terms, "attention norm input (residual)"), 2 * T * h / 2);
  input.parallel.expert_tp = 2;  // each expert's tokens go to both of its tp ranks
  EXPECT_EQ(term_bytes(layer_activation_terms(input, true), "expert gate/up output (SwiGLU input)"),
            2 * (T * top_k) * 2 * (expert_ffn / 2));
}

TEST(MoeActivation, WithoutFlashAttentionTheScoresAppear) {
  PlanInput input = kimi_input();
  input.training.flash_attention = false;
  // bf16 softmax output: heads x (65536 / cp) queries x 65536 keys.
  EXPECT_EQ(term_bytes(layer_activation_terms(input, true), "softmax output (no flash attention)"),
            2 * heads * T * 65536);
}

}  // namespace
}  // namespace dopant::planner
