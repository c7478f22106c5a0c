// The planner's formulas: parameter counts, stage placement, state and activation memory,
// and the per-stage plan (see docs/memory.md for each formula).

#include "memory_plan.hpp"

#include <algorithm>

namespace dopant::planner {

// Parameter counting per component; formulas are listed in docs/memory.md.

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
    rank.non_expert +=
        count * (layer.norms + layer.attention_replicated + layer.router +
                 (layer.attention_sharded + layer.dense_ffn + layer.shared_experts) / parallel.tp);
    rank.expert += count * layer.routed_experts / (parallel.ep * parallel.expert_tp);
  };
  add_layers(stage.dense_layers, params.dense_layer);
  add_layers(stage.moe_layers, params.moe_layer);
  if (stage.has_embedding) rank.non_expert += params.embedding / parallel.tp;
  if (stage.has_output_head) rank.non_expert += params.output_head / parallel.tp + params.final_norm;
  return rank;
}

// Weights, gradients and optimizer state per GPU.

namespace {

constexpr uint64_t kFp32Bytes = 4;
constexpr uint64_t kAdamMoments = 2;

uint64_t ceil_div(uint64_t value, uint64_t divisor) { return (value + divisor - 1) / divisor; }

}  // namespace

uint64_t optimizer_shard(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  if (!training.distributed_optimizer) return rank.total();
  return ceil_div(rank.non_expert, parallel.dense_dp()) + ceil_div(rank.expert, parallel.expert_dp());
}

StateBytes state_bytes(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  const uint64_t shard = optimizer_shard(rank, parallel, training);
  StateBytes bytes;
  bytes.weights = rank.total() * bytes_of(training.precision);
  bytes.grads = rank.total() * bytes_of(training.grad_dtype);
  bytes.master = training.precision == DataType::Bf16 ? shard * kFp32Bytes : 0;
  bytes.moments = shard * kAdamMoments * kFp32Bytes;
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
      : tokens(input.training.micro_batch * input.training.context / input.parallel.cp),
        hidden(input.model.hidden),
        tp(input.parallel.tp),
        seq_split(input.parallel.sequence_parallel ? input.parallel.tp : 1) {}

  // A bf16 tensor of `width` per token in the sequence-parallel region.
  uint64_t sequence(uint64_t width) const { return kBf16 * tokens * width / seq_split; }
  // A bf16 tensor of `width` per token split over tp (heads or FFN columns).
  uint64_t split(uint64_t width) const { return kBf16 * tokens * width / tp; }
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
    const uint64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    terms.push_back(
        {"q, k, v (MLA up-projection outputs)", d.split(heads * (2 * qk_head + a.v_head_dim)), true});
    terms.push_back({"attention output (o-projection input)", d.split(heads * a.v_head_dim), false});
  } else {
    terms.push_back({"q, k, v", d.split((heads + 2 * a.kv_heads) * a.head_dim), false});
    terms.push_back({"attention output (o-projection input)", d.split(heads * a.head_dim), false});
  }
  terms.push_back({"softmax log-sum-exp (fp32)", kFp32 * d.tokens * heads / d.tp, false});
  if (!input.training.flash_attention) {
    const uint64_t context = input.training.context;
    terms.push_back(
        {"softmax output (no flash attention)",
         kBf16 * input.training.micro_batch * (heads / d.tp) * (context / input.parallel.cp) * context,
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
  const uint64_t routed = d.tokens * moe.top_k * p.expert_tp / p.tp;
  const uint64_t expert_ffn = moe.expert_ffn / p.expert_tp;
  terms.push_back({"router scores (fp32)", kFp32 * d.tokens * moe.experts / d.seq_split, false});
  terms.push_back({"dispatched tokens (expert input)", kBf16 * routed * d.hidden, false});
  add_swiglu_terms("expert", kBf16 * routed * 2 * expert_ffn, kBf16 * routed * expert_ffn, terms);
  terms.push_back({"expert outputs (combine input)", kBf16 * routed * d.hidden, false});
  const uint64_t shared_ffn = moe.shared_experts * moe.expert_ffn;
  if (shared_ffn > 0) add_swiglu_terms("shared expert", d.split(2 * shared_ffn), d.split(shared_ffn), terms);
}

}  // namespace

std::vector<ActivationTerm> layer_activation_terms(const PlanInput& input, bool moe_layer) {
  const Dims d(input);
  std::vector<ActivationTerm> terms;
  add_attention_terms(input, d, terms);
  if (moe_layer) {
    add_moe_terms(input, d, terms);
  } else {
    add_swiglu_terms("ffn", d.split(2 * input.model.ffn), d.split(input.model.ffn), terms);
  }
  return terms;
}

uint64_t layer_activation_bytes(const PlanInput& input, bool moe_layer, Recompute recompute) {
  if (recompute == Recompute::Full) return Dims(input).sequence(input.model.hidden);
  uint64_t bytes = 0;
  for (const auto& term : layer_activation_terms(input, moe_layer)) {
    if (recompute == Recompute::None || !term.recomputed_by_selective) bytes += term.bytes;
  }
  return bytes;
}

uint64_t chunks_in_flight(uint64_t stage, const Parallelism& parallel) {
  const uint64_t pp = parallel.pp;
  const uint64_t v = parallel.virtual_stages;
  if (v == 1) return pp - stage;
  return 2 * (pp - stage - 1) + (v - 1) * pp + 1;
}

StageActivations stage_activations(const PlanInput& input, const StageLayout& stage) {
  const Recompute recompute = input.training.recompute;
  const Parallelism& parallel = input.parallel;
  StageActivations act;
  act.per_microbatch = stage.dense_layers * layer_activation_bytes(input, false, recompute) +
                       stage.moe_layers * layer_activation_bytes(input, true, recompute);
  act.chunks_in_flight = chunks_in_flight(stage.index, parallel);
  act.stored = act.per_microbatch * act.chunks_in_flight / parallel.virtual_stages;
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
    act.output_head = 2 * d.sequence(d.hidden) + kFp32 * d.tokens * input.model.vocab / d.tp;
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
  stage.offload.staging = kOffloadSlots * input.offload.chunk_bytes;
  stage.offload_host_bytes = state.master + state.moments;
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
