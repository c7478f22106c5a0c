// The per-row element formulas both routing implementations share (see routing.hpp):
// reading a row of logits, its scores, the weights at chosen ids, and the check of a
// recorded row. Sharing them is what makes the reference and the fast path agree bit for
// bit; they differ only in how they select experts.
#pragma once

#include "dopant/topk_kernels/routing.hpp"

namespace dopant::topk_kernels::detail {

// x[e] = logit e of `token` as fp32 (bf16 widened exactly); throws naming the token and
// expert when one is not finite.
void load_row(const RouteData& data, int64_t token, float* x);

// scores[e] from logits x[e], e in [0, experts) (the formulas of routing.hpp).
void score_row(Scoring scoring, const float* x, int64_t experts, float* scores);

// weights[k] for the chosen ids[k], k in [0, top_k), from unbiased `scores`.
void write_weights(const RoutingRule& rule, const float* scores, const int32_t* ids, float* weights);

// Copies the recorded ids of `token` into `ids` after checking each is in [0, experts) and
// none repeats within the row; throws naming the token and slot otherwise.
void replay_row(const RoutingRule& rule, const RouteData& data, int64_t token, int32_t* ids);

}  // namespace dopant::topk_kernels::detail
