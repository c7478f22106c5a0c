// The planner's formulas: parameter counts, stage placement, state and activation memory,
// and the per-stage plan (see docs/memory.md for each formula).

#include "memory_plan.hpp"

#include <algorithm>

namespace dopant::planner {

// Parameter counting per component; formulas are listed in docs/memory.md.

namespace {

// SwiGLU FFN: gate and up projections (hidden -> ffn) and the down projection (ffn -> hidden).
uint64_t swiglu(uint64_t hidden, uint64_t ffn) { return mul(3, hidden, ffn); }

void count_attention(const ModelShape& model, LayerParams& layer) {
  const AttentionShape& a = model.attention;
  const uint64_t h = model.hidden;
  const uint64_t heads = model.heads;
  if (a.kind == AttentionKind::Gqa) {
    layer.attention_sharded = sum(mul(h, heads, a.head_dim),        // q
                                  mul(2, h, a.kv_heads, a.head_dim),  // k, v
                                  mul(heads, a.head_dim, h));         // o
    return;
  }
  const uint64_t qk_head = sum(a.qk_nope_head_dim, a.qk_rope_head_dim);
  const bool compressed_q = a.q_lora_rank > 0;
  const uint64_t q_down = compressed_q ? mul(h, a.q_lora_rank) : 0;                           // q_a_proj
  const uint64_t q_norm = a.q_lora_rank;                                                      // q_a_layernorm
  const uint64_t q_up = mul(compressed_q ? a.q_lora_rank : h, heads, qk_head);                // q_b_proj or q_proj
  const uint64_t kv_down = mul(h, sum(a.kv_lora_rank, a.qk_rope_head_dim));                   // kv_a_proj_with_mqa
  const uint64_t kv_norm = a.kv_lora_rank;                                                    // kv_a_layernorm
  const uint64_t kv_up = mul(a.kv_lora_rank, heads, sum(a.qk_nope_head_dim, a.v_head_dim));  // kv_b_proj
  const uint64_t o = mul(heads, a.v_head_dim, h);                                             // o_proj
  layer.attention_sharded = sum(q_up, kv_up, o);
  layer.attention_replicated = sum(q_down, q_norm, kv_down, kv_norm);
}

}  // namespace

uint64_t ModelParams::total() const {
  return sum(mul(dense_layers, dense_layer.total()), mul(moe_layers, moe_layer.total()), embedding, output_head,
             final_norm);
}

uint64_t ModelParams::activated() const {
  const uint64_t moe_activated = sum(moe_layer.total() - moe_layer.routed_experts, mul(top_k, expert));
  return sum(mul(dense_layers, dense_layer.total()), mul(moe_layers, moe_activated), embedding, output_head,
             final_norm);
}

ModelParams count_parameters(const ModelShape& model) {
  ModelParams params;
  const uint64_t h = model.hidden;
  LayerParams common;
  common.norms = mul(2, h);
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
    params.moe_layer.shared_experts = mul(moe.shared_experts, params.expert);
    params.moe_layer.router = mul(h, moe.experts);
    params.moe_layer.routed_experts = mul(moe.experts, params.expert);
  }
  params.embedding = mul(model.vocab, h);
  params.output_head = mul(model.vocab, h);
  params.final_norm = h;
  return params;
}

// Layers to pipeline stages, and parameters to the GPUs of one stage.

namespace {

// Stage of every layer, for the non-interleaved schedule.
std::vector<uint64_t> contiguous_stages(uint64_t layers, uint64_t pp) {
  std::vector<uint64_t> sizes(pp, layers / pp);
  std::vector<uint64_t> order;  // who gets the remainder first
  for (uint64_t stage = 1; stage + 1 < pp; ++stage) order.push_back(stage);
  order.push_back(0);
  if (pp > 1) order.push_back(pp - 1);
  for (uint64_t i = 0; i < layers % pp; ++i) ++sizes[order[i]];
  std::vector<uint64_t> stage_of;
  for (uint64_t stage = 0; stage < pp; ++stage) stage_of.insert(stage_of.end(), sizes[stage], stage);
  return stage_of;
}

// Stage of every layer, for interleaved 1F1B (layers divisible by pp * virtual_stages).
std::vector<uint64_t> interleaved_stages(uint64_t layers, uint64_t pp, uint64_t virtual_stages) {
  const uint64_t chunk = layers / (pp * virtual_stages);
  std::vector<uint64_t> stage_of(layers);
  for (uint64_t layer = 0; layer < layers; ++layer) stage_of[layer] = (layer / chunk) % pp;
  return stage_of;
}

}  // namespace

std::vector<StageLayout> place_layers(const ModelShape& model, const Parallelism& parallel) {
  const uint64_t pp = parallel.pp;
  const std::vector<uint64_t> stage_of = parallel.virtual_stages > 1
                                             ? interleaved_stages(model.layers, pp, parallel.virtual_stages)
                                             : contiguous_stages(model.layers, pp);
  std::vector<StageLayout> stages(pp);
  for (uint64_t stage = 0; stage < pp; ++stage) stages[stage].index = stage;
  for (uint64_t layer = 0; layer < model.layers; ++layer) {
    StageLayout& stage = stages[stage_of[layer]];
    ++(model.is_dense_layer(layer) ? stage.dense_layers : stage.moe_layers);
  }
  stages.front().has_embedding = true;
  stages.back().has_output_head = true;
  return stages;
}

RankParams rank_params(const ModelParams& params, const StageLayout& stage, const Parallelism& parallel) {
  RankParams rank;
  const auto add_layers = [&](uint64_t count, const LayerParams& layer) {
    const uint64_t sharded = sum(layer.attention_sharded, layer.dense_ffn, layer.shared_experts) / parallel.tp;
    rank.non_expert = sum(rank.non_expert,
                          mul(count, sum(layer.norms, layer.attention_replicated, layer.router, sharded)));
    rank.expert = sum(rank.expert, mul(count, layer.routed_experts) / mul(parallel.ep, parallel.expert_tp));
  };
  add_layers(stage.dense_layers, params.dense_layer);
  add_layers(stage.moe_layers, params.moe_layer);
  if (stage.has_embedding) rank.non_expert = sum(rank.non_expert, params.embedding / parallel.tp);
  if (stage.has_output_head) {
    rank.non_expert = sum(rank.non_expert, params.output_head / parallel.tp, params.final_norm);
  }
  return rank;
}

// Weights, gradients and optimizer state per GPU.

namespace {

constexpr uint64_t kFp32Bytes = 4;
constexpr uint64_t kAdamMoments = 2;

uint64_t ceil_div(uint64_t value, uint64_t divisor) { return value / divisor + (value % divisor != 0); }

}  // namespace

uint64_t optimizer_shard(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  if (!training.distributed_optimizer) return rank.total();
  return sum(ceil_div(rank.non_expert, parallel.dense_dp()), ceil_div(rank.expert, parallel.expert_dp()));
}

StateBytes state_bytes(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  const uint64_t shard = optimizer_shard(rank, parallel, training);
  StateBytes bytes;
  bytes.weights = mul(rank.total(), bytes_of(training.precision));
  bytes.grads = mul(rank.total(), bytes_of(training.grad_dtype));
  bytes.master = training.precision == DataType::Bf16 ? mul(shard, kFp32Bytes) : 0;
  bytes.moments = mul(shard, kAdamMoments, kFp32Bytes);
  return bytes;
}

// Per-layer activation terms and their accumulation over a pipeline stage.

namespace {

constexpr uint64_t kBf16 = 2;
constexpr uint64_t kFp32 = 4;

// Sizes shared by the terms: tokens of one micro-batch on one GPU and the splits.
struct Dims {
  uint64_t tokens;  // micro_batch * context / cp
  uint64_t hidden;
  uint64_t tp;
  uint64_t seq_split;  // tp with sequence parallelism, else 1

  explicit Dims(const PlanInput& input)
      : tokens(mul(input.training.micro_batch, input.training.context) / input.parallel.cp),
        hidden(input.model.hidden),
        tp(input.parallel.tp),
        seq_split(input.parallel.sequence_parallel ? input.parallel.tp : 1) {}

  // A bf16 tensor of `width` per token in the sequence-parallel region.
  uint64_t sequence(uint64_t width) const { return mul(kBf16, tokens, width) / seq_split; }
  // A bf16 tensor of `width` per token split over tp (heads or FFN columns).
  uint64_t split(uint64_t width) const { return mul(kBf16, tokens, width) / tp; }
};

void add_attention_terms(const PlanInput& input, const Dims& d, std::vector<ActivationTerm>& terms) {
  const AttentionShape& a = input.model.attention;
  const uint64_t heads = input.model.heads;
  terms.push_back({"attention norm input (residual)", d.sequence(d.hidden), false});
  terms.push_back({"attention norm output", d.sequence(d.hidden), true});
  if (a.kind == AttentionKind::Mla) {
    if (a.q_lora_rank > 0) {
      terms.push_back({"q latent (q norm input)", d.sequence(a.q_lora_rank), false});
      terms.push_back({"q latent normed (q up-projection input)", d.sequence(a.q_lora_rank), false});
    }
    terms.push_back({"kv latent (kv norm input)", d.sequence(a.kv_lora_rank), false});
    terms.push_back({"kv latent normed (kv up-projection input)", d.sequence(a.kv_lora_rank), false});
    const uint64_t qk_head = sum(a.qk_nope_head_dim, a.qk_rope_head_dim);
    terms.push_back({"q, k, v (MLA up-projection outputs)",
                     d.split(mul(heads, sum(mul(2, qk_head), a.v_head_dim))), true});
    terms.push_back({"attention output (o-projection input)", d.split(mul(heads, a.v_head_dim)), false});
  } else {
    terms.push_back({"q, k, v", d.split(mul(sum(heads, mul(2, a.kv_heads)), a.head_dim)), false});
    terms.push_back({"attention output (o-projection input)", d.split(mul(heads, a.head_dim)), false});
  }
  terms.push_back({"softmax log-sum-exp (fp32)", mul(kFp32, d.tokens, heads) / d.tp, false});
  if (!input.training.flash_attention) {
    const uint64_t context = input.training.context;
    terms.push_back(
        {"softmax output (no flash attention)",
         mul(kBf16, input.training.micro_batch, heads / d.tp, context / input.parallel.cp, context),
         false});
  }
  terms.push_back({"ffn norm input (residual)", d.sequence(d.hidden), false});
  terms.push_back({"ffn norm output", d.sequence(d.hidden), true});
}

void add_swiglu_terms(const std::string& what, uint64_t gate_up_bytes, uint64_t output_bytes,
                      std::vector<ActivationTerm>& terms) {
  terms.push_back({what + " gate/up output (SwiGLU input)", gate_up_bytes, false});
  terms.push_back({what + " SwiGLU output (down-projection input)", output_bytes, true});
}

void add_moe_terms(const PlanInput& input, const Dims& d, std::vector<ActivationTerm>& terms) {
  const MoeShape& moe = input.model.moe;
  const Parallelism& p = input.parallel;
  // Token copies routed to one GPU's experts, with balanced routing.
  const uint64_t routed = mul(d.tokens, moe.top_k, p.expert_tp) / p.tp;
  const uint64_t expert_ffn = moe.expert_ffn / p.expert_tp;
  terms.push_back({"router scores (fp32)", mul(kFp32, d.tokens, moe.experts) / d.seq_split, false});
  terms.push_back({"dispatched tokens (expert input)", mul(kBf16, routed, d.hidden), false});
  add_swiglu_terms("expert", mul(kBf16, routed, 2, expert_ffn), mul(kBf16, routed, expert_ffn), terms);
  terms.push_back({"expert outputs (combine input)", mul(kBf16, routed, d.hidden), false});
  const uint64_t shared_ffn = mul(moe.shared_experts, moe.expert_ffn);
  if (shared_ffn > 0) add_swiglu_terms("shared expert", d.split(mul(2, shared_ffn)), d.split(shared_ffn), terms);
}

}  // namespace

std::vector<ActivationTerm> layer_activation_terms(const PlanInput& input, bool moe_layer) {
  const Dims d(input);
  std::vector<ActivationTerm> terms;
  add_attention_terms(input, d, terms);
  if (moe_layer) {
    add_moe_terms(input, d, terms);
  } else {
    add_swiglu_terms("ffn", d.split(mul(2, input.model.ffn)), d.split(input.model.ffn), terms);
  }
  return terms;
}

uint64_t layer_activation_bytes(const PlanInput& input, bool moe_layer, Recompute recompute) {
  if (recompute == Recompute::Full) return Dims(input).sequence(input.model.hidden);
  uint64_t bytes = 0;
  for (const auto& term : layer_activation_terms(input, moe_layer)) {
    if (recompute == Recompute::None || !term.recomputed_by_selective) bytes = sum(bytes, term.bytes);
  }
  return bytes;
}

uint64_t chunks_in_flight(uint64_t stage, const Parallelism& parallel) {
  const uint64_t pp = parallel.pp;
  const uint64_t v = parallel.virtual_stages;
  if (v == 1) return pp - stage;
  return sum(mul(2, pp - stage - 1), mul(v - 1, pp), 1);
}

StageActivations stage_activations(const PlanInput& input, const StageLayout& stage) {
  const Recompute recompute = input.training.recompute;
  const Parallelism& parallel = input.parallel;
  StageActivations act;
  act.per_microbatch = sum(mul(stage.dense_layers, layer_activation_bytes(input, false, recompute)),
                           mul(stage.moe_layers, layer_activation_bytes(input, true, recompute)));
  act.chunks_in_flight = chunks_in_flight(stage.index, parallel);
  act.stored = mul(act.per_microbatch, act.chunks_in_flight) / parallel.virtual_stages;
  if (recompute == Recompute::Full) {
    if (stage.dense_layers > 0) {
      act.recompute_working_set = layer_activation_bytes(input, false, Recompute::None);
    }
    if (stage.moe_layers > 0) {
      act.recompute_working_set =
          std::max(act.recompute_working_set, layer_activation_bytes(input, true, Recompute::None));
    }
  }
  if (stage.has_output_head) {
    const Dims d(input);
    act.output_head = sum(mul(2, d.sequence(d.hidden)), mul(kFp32, d.tokens, input.model.vocab) / d.tp);
  }
  return act;
}

// Builds the baseline and chunked-offload breakdowns for every stage and finds the worst.

namespace {

StagePlan plan_stage(const PlanInput& input, const ModelParams& params, const StageLayout& layout) {
  StagePlan stage;
  stage.layout = layout;
  stage.params = rank_params(params, layout, input.parallel);
  stage.activations = stage_activations(input, layout);
  const StateBytes state = state_bytes(stage.params, input.parallel, input.training);

  stage.baseline.weights = state.weights;
  stage.baseline.grads = state.grads;
  stage.baseline.master = state.master;
  stage.baseline.moments = state.moments;
  stage.baseline.activations = stage.activations.total();

  stage.offload.weights = state.weights;
  stage.offload.grads = state.grads;
  stage.offload.activations = stage.activations.total();
  stage.offload.staging = mul(kOffloadSlots, input.offload.chunk_bytes);
  stage.offload_host_bytes = sum(state.master, state.moments);
  return stage;
}

}  // namespace

MemoryPlan plan_memory(const PlanInput& input) {
  MemoryPlan plan;
  plan.params = count_parameters(input.model);
  for (const StageLayout& layout : place_layers(input.model, input.parallel)) {
    plan.stages.push_back(plan_stage(input, plan.params, layout));
  }
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    if (plan.stages[i].baseline.total() > plan.baseline_stage().baseline.total()) plan.worst_baseline = i;
    if (plan.stages[i].offload.total() > plan.offload_stage().offload.total()) plan.worst_offload = i;
  }
  return plan;
}

}  // namespace dopant::planner
