// Parameter counts of a decoder-only transformer with GQA or MLA attention, SwiGLU FFNs and
// optional DeepSeek-V3-style MoE layers (routed + shared experts), untied output head.
// Counts are split by how tensor parallelism treats them, which placement needs.
#pragma once

#include "plan_input.hpp"

#include <cstdint>

namespace dopant::planner {

// The parameters of one layer.
struct LayerParams {
  uint64_t norms = 0;                 // input and pre-FFN RMSNorm weights, replicated over tp
  uint64_t attention_sharded = 0;     // projections split over tp (q/k/v/o, or MLA up + o)
  uint64_t attention_replicated = 0;  // MLA down-projections and latent norms, duplicated over tp
  uint64_t dense_ffn = 0;             // SwiGLU, 3 * hidden * ffn, split over tp
  uint64_t shared_experts = 0;        // SwiGLU per shared expert, split over tp
  uint64_t router = 0;                // hidden * experts, replicated over tp
  uint64_t routed_experts = 0;        // experts * 3 * hidden * expert_ffn, split over ep*expert_tp

  uint64_t total() const {
    return norms + attention_sharded + attention_replicated + dense_ffn + shared_experts + router +
           routed_experts;
  }
};

struct ModelParams {
  LayerParams dense_layer;  // a layer with the dense FFN
  LayerParams moe_layer;    // a layer with experts (all zero for a dense model)
  uint64_t dense_layers = 0;
  uint64_t moe_layers = 0;
  uint64_t embedding = 0;    // vocab * hidden, split over tp
  uint64_t output_head = 0;  // vocab * hidden (untied), split over tp
  uint64_t final_norm = 0;   // hidden
  uint64_t expert = 0;       // one routed expert: 3 * hidden * expert_ffn
  uint64_t top_k = 0;

  uint64_t total() const;
  // Parameters one token passes through: everything but the routed experts it is not sent to.
  uint64_t activated() const;
};

ModelParams count_parameters(const ModelShape& model);

}  // namespace dopant::planner
