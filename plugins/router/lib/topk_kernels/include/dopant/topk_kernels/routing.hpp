// Top-k MoE routing for one layer, as the `topk` router plugin runs it: scores, optional
// group-limited selection with a score-correction bias, top-k, weights. One rule covers
// Mixtral / Qwen-MoE (softmax) and DeepSeek-V3 / Kimi-K2 `noaux_tc` (sigmoid):
//
//   score_e     = softmax(x)_e = exp(x_e - max x) / sum_j exp(x_j - max x)    (softmax)
//               = 1 / (1 + exp(-x_e))                                         (sigmoid)
//   choice_e    = score_e + bias_e                     (bias: selection only; 0 without)
//   group g     = experts [g * E/n_group, (g+1) * E/n_group); its score = the sum of its two
//                 largest choice values; only the topk_group best groups stay selectable
//                 (n_group = 1: every expert)
//   ids         = the top_k selectable experts by choice, best first
//   w_k         = score_{id_k}                         (unbiased)
//   w_k         = w_k / (sum_k w_k + 1e-20)            if norm_topk_prob
//   w_k         = w_k * routed_scaling_factor
//
// Ties: a higher value wins; on equal values the lower index wins (expert, and group).
// With recorded ids the selection is theirs, in their order, and only the weights are
// computed, from this call's unbiased scores.
//
// Two implementations give the same ids and the same weight bits: route_reference (plain:
// full sorts) and route_fast (one pass per row; the plugin cuts tokens across threads
// with it). Both share the element formulas of row_math.hpp, so they differ only in how
// they select. Errors (non-finite logits, bad recorded ids) throw sdk::Error naming the
// token.
#pragma once

#include <cstdint>

namespace dopant::topk_kernels {

enum class Scoring : uint8_t { softmax, sigmoid };

struct RoutingRule {
  Scoring scoring = Scoring::softmax;
  uint32_t top_k = 1;                 // experts per token
  bool norm_topk_prob = false;        // renormalize the chosen weights to sum 1
  uint32_t n_group = 1;               // expert groups (divides the expert count)
  uint32_t topk_group = 1;            // groups kept per token
  float routed_scaling_factor = 1.0f; // applied to every weight, last
};

enum class LogitsType : uint8_t { f32, bf16 };

// The tensors of one call, contiguous row-major host memory.
struct RouteData {
  const void* logits = nullptr;  // [tokens, experts] fp32 or bf16 (logits_type)
  LogitsType logits_type = LogitsType::f32;
  int64_t tokens = 0;
  int64_t experts = 0;
  const float* bias = nullptr;        // [experts] fp32, or nullptr
  const int32_t* recorded = nullptr;  // [tokens, top_k] int32, or nullptr
  int32_t* ids = nullptr;             // [tokens, top_k] int32, out
  float* weights = nullptr;           // [tokens, top_k] fp32, out
};

// Throws sdk::Error(DPT_INVALID_ARGUMENT) naming the parameter when `rule` cannot route
// `experts` experts: top_k in [1, experts]; n_group divides experts, with at least two
// experts per group when n_group > 1; topk_group in [1, n_group]; top_k no more than the
// experts of topk_group groups; routed_scaling_factor finite and > 0.
void check_rule(const RoutingRule& rule, int64_t experts);

// Routes every token, plainly. `rule` must have passed check_rule.
void route_reference(const RoutingRule& rule, const RouteData& data);

// Routes tokens [begin, end) (any split gives the reference's results).
void route_fast(const RoutingRule& rule, const RouteData& data, int64_t begin, int64_t end);

// load[e] = how many of the `count` ids equal e, for e in [0, experts). ids are in range.
void count_load(const int32_t* ids, int64_t count, int64_t experts, int64_t* load);

}  // namespace dopant::topk_kernels
