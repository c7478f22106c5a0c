// Parameter counting per component; formulas are listed in docs/memory.md.
#include "parameter_count.hpp"

namespace dopant::planner {
namespace {

// SwiGLU FFN: gate and up projections (hidden -> ffn) and the down projection (ffn -> hidden).
uint64_t swiglu(uint64_t hidden, uint64_t ffn) { return 3 * hidden * ffn; }

void count_attention(const ModelShape& model, LayerParams& layer) {
  const AttentionShape& a = model.attention;
  const uint64_t h = model.hidden;
  const uint64_t heads = model.heads;
  if (a.kind == AttentionKind::Gqa) {
    layer.attention_sharded = h * heads * a.head_dim             // q
                              + 2 * h * a.kv_heads * a.head_dim  // k, v
                              + heads * a.head_dim * h;          // o
    return;
  }
  const uint64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const bool compressed_q = a.q_lora_rank > 0;
  const uint64_t q_down = compressed_q ? h * a.q_lora_rank : 0;                         // q_a_proj
  const uint64_t q_norm = a.q_lora_rank;                                                // q_a_layernorm
  const uint64_t q_up = (compressed_q ? a.q_lora_rank : h) * heads * qk_head;           // q_b_proj or q_proj
  const uint64_t kv_down = h * (a.kv_lora_rank + a.qk_rope_head_dim);                   // kv_a_proj_with_mqa
  const uint64_t kv_norm = a.kv_lora_rank;                                              // kv_a_layernorm
  const uint64_t kv_up = a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim);  // kv_b_proj
  const uint64_t o = heads * a.v_head_dim * h;                                          // o_proj
  layer.attention_sharded = q_up + kv_up + o;
  layer.attention_replicated = q_down + q_norm + kv_down + kv_norm;
}

}  // namespace

uint64_t ModelParams::total() const {
  return dense_layers * dense_layer.total() + moe_layers * moe_layer.total() + embedding + output_head +
         final_norm;
}

uint64_t ModelParams::activated() const {
  const uint64_t moe_activated = moe_layer.total() - moe_layer.routed_experts + top_k * expert;
  return dense_layers * dense_layer.total() + moe_layers * moe_activated + embedding + output_head +
         final_norm;
}

ModelParams count_parameters(const ModelShape& model) {
  ModelParams params;
  const uint64_t h = model.hidden;
  LayerParams common;
  common.norms = 2 * h;
  count_attention(model, common);

  params.dense_layer = common;
  params.dense_layer.dense_ffn = swiglu(h, model.ffn);
  params.dense_layers = model.has_moe() ? model.moe.dense_layers : model.layers;
  params.moe_layers = model.layers - params.dense_layers;
  if (model.has_moe()) {
    const MoeShape& moe = model.moe;
    params.expert = swiglu(h, moe.expert_ffn);
    params.top_k = moe.top_k;
    params.moe_layer = common;
    params.moe_layer.shared_experts = moe.shared_experts * params.expert;
    params.moe_layer.router = h * moe.experts;
    params.moe_layer.routed_experts = moe.experts * params.expert;
  }
  params.embedding = model.vocab * h;
  params.output_head = model.vocab * h;
  params.final_norm = h;
  return params;
}

}  // namespace dopant::planner
