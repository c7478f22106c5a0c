// The per-row element formulas both routing implementations share (see routing.hpp):
// reading and scoring a row of logits (non-finite logits refused), a replayed row, and
// the weights at chosen ids. Sharing them is what makes the reference and the fast path
// agree bit for bit; they differ only in how they select experts.
#pragma once

#include "dopant/topk_kernels/routing.hpp"

namespace dopant::topk_kernels::detail {

// weights[k] for the chosen ids[k], k in [0, top_k), from unbiased `scores`.
void write_weights(const RoutingRule& rule, const float* scores, const int32_t* ids, float* weights);

// Reads and scores the row of `token` (x, scores: [experts] fp32 scratch and result). With
// recorded ids it also checks them (each in [0, experts), none repeated within the row;
// throws naming the token and slot otherwise), writes them and their weights as the
// token's outputs, and returns true: the row is done. Without, it returns false.
bool score_or_replay(const RoutingRule& rule, const RouteData& data, int64_t token, float* x, float* scores);

}  // namespace dopant::topk_kernels::detail
