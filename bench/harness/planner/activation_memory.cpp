// Per-layer activation terms and their accumulation over a pipeline stage.
#include "activation_memory.hpp"

#include <algorithm>

namespace dopant::planner {
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

}  // namespace dopant::planner
