// The planner input's defaults, its one-line located errors, and the consistency checks
// of a parsed plan.

#include "plan_input.hpp"

#include <dopant/support/text.hpp>

#include <algorithm>
#include <string>

namespace dopant::planner {

// Names of the planner's enumerations, as they are spelled in plan files and reports.

const char* name_of(DataType type) { return type == DataType::Bf16 ? "bf16" : "fp32"; }

const char* name_of(Recompute recompute) {
  switch (recompute) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

const char* name_of(AttentionKind kind) { return kind == AttentionKind::Mla ? "mla" : "gqa"; }

// Planner input errors are one located line, formatted as every TOML problem is.

void fail_at(const std::string& source, SourcePos position, std::string_view message) {
  Diagnostics diagnostics(source);
  diagnostics.add(position, std::string(message));
  throw PlanError(diagnostics.report());
}

// Consistency checks of a plan: grid size, divisibility of every split, MoE coherence.

namespace {

class Checker {
 public:
  explicit Checker(const PlanInput& input) : input_(input) {}

  // Fails at the position of `key` with `message` unless `ok`.
  void require(bool ok, std::string_view key, const std::string& message) const {
    if (ok) return;
    const auto found = input_.positions.find(key);
    fail_at(input_.source, found == input_.positions.end() ? kWholeFile : found->second, message);
  }

  // Fails unless `divisor` (the value of `divisor_key`) divides `value` (named `what`).
  void divides(uint64_t divisor, std::string_view divisor_key, uint64_t value,
               const std::string& what) const {
    require(value % divisor == 0, divisor_key,
            "`" + std::string(divisor_key) + "` = " + std::to_string(divisor) + " does not divide " + what +
                " = " + std::to_string(value));
  }

 private:
  const PlanInput& input_;
};

bool has_dense_layer(const ModelShape& model) { return !model.has_moe() || model.moe.dense_layers > 0; }

void check_grid(const Checker& check, const Parallelism& p) {
  const uint64_t product = p.tp * p.pp * p.dp * p.cp;
  check.require(p.gpus == product, "parallel.gpus",
                "`parallel.gpus` = " + std::to_string(p.gpus) + " but tp*pp*dp*cp = " + std::to_string(p.tp) +
                    "*" + std::to_string(p.pp) + "*" + std::to_string(p.dp) + "*" + std::to_string(p.cp) +
                    " = " + std::to_string(product));
}

void check_tensor_parallel(const Checker& check, const PlanInput& input) {
  const ModelShape& model = input.model;
  const uint64_t tp = input.parallel.tp;
  check.divides(tp, "parallel.tp", model.heads, "`model.heads`");
  check.divides(tp, "parallel.tp", model.vocab, "`model.vocab`");
  if (model.attention.kind == AttentionKind::Gqa) {
    check.divides(tp, "parallel.tp", model.attention.kv_heads, "`model.attention.kv_heads`");
    check.divides(model.attention.kv_heads, "model.attention.kv_heads", model.heads, "`model.heads`");
  }
  if (has_dense_layer(model)) {
    check.require(model.ffn > 0, "model", "missing key `model.ffn` (some layers use the dense FFN)");
    check.divides(tp, "parallel.tp", model.ffn, "`model.ffn`");
  }
  if (input.parallel.sequence_parallel) {
    const uint64_t tokens = input.training.micro_batch * input.training.context / input.parallel.cp;
    check.divides(tp, "parallel.tp", tokens, "the tokens per rank (micro_batch*context/cp)");
  }
}

void check_pipeline(const Checker& check, const PlanInput& input) {
  const Parallelism& p = input.parallel;
  const uint64_t layers = input.model.layers;
  check.require(
      p.pp <= layers, "parallel.pp",
      "`parallel.pp` = " + std::to_string(p.pp) + " exceeds `model.layers` = " + std::to_string(layers));
  if (p.virtual_stages > 1) {
    check.require(p.pp > 1, "parallel.virtual_stages", "`parallel.virtual_stages` needs pp > 1");
    check.divides(p.pp * p.virtual_stages, "parallel.virtual_stages", layers,
                  "`model.layers` (as pp*virtual_stages)");
  }
  check.divides(p.cp, "parallel.cp", input.training.context, "`training.context`");
}

void check_experts(const Checker& check, const PlanInput& input) {
  const ModelShape& model = input.model;
  const Parallelism& p = input.parallel;
  if (!model.has_moe()) {
    check.require(p.ep == 1, "parallel.ep", "`parallel.ep` needs a [model.moe] table");
    check.require(p.expert_tp == 1, "parallel.expert_tp", "`parallel.expert_tp` needs a [model.moe] table");
    return;
  }
  const MoeShape& moe = model.moe;
  check.require(moe.top_k <= moe.experts, "model.moe.top_k",
                "`model.moe.top_k` = " + std::to_string(moe.top_k) +
                    " exceeds `model.moe.experts` = " + std::to_string(moe.experts));
  check.require(moe.dense_layers <= model.layers, "model.moe.dense_layers",
                "`model.moe.dense_layers` exceeds `model.layers`");
  check.divides(p.ep, "parallel.ep", moe.experts, "`model.moe.experts`");
  check.divides(p.expert_tp, "parallel.expert_tp", moe.expert_ffn, "`model.moe.expert_ffn`");
  check.divides(p.tp, "parallel.tp", moe.shared_experts * moe.expert_ffn,
                "the shared-expert FFN (shared_experts*expert_ffn)");
  check.require((p.tp * p.cp * p.dp) % (p.ep * p.expert_tp) == 0, "parallel.ep",
                "ep*expert_tp = " + std::to_string(p.ep * p.expert_tp) +
                    " does not divide tp*cp*dp = " + std::to_string(p.tp * p.cp * p.dp) +
                    " (experts fold into the ranks of one pipeline stage)");
  check.require(p.tp == 1 || p.sequence_parallel, "parallel.sequence_parallel",
                "`parallel.sequence_parallel` must be true for MoE with tp > 1");
}

// A generous upper bound (in long double) on every product the planner forms, so that
// absurd sizes are refused instead of overflowing 64-bit arithmetic.
long double magnitude_bound(const PlanInput& input) {
  const ModelShape& m = input.model;
  const AttentionShape& at = m.attention;
  const Parallelism& p = input.parallel;
  const auto n = [](uint64_t value) { return static_cast<long double>(value); };
  const long double width = n(std::max({m.hidden, at.head_dim, at.q_lora_rank, at.kv_lora_rank,
                                        at.qk_nope_head_dim + at.qk_rope_head_dim, at.v_head_dim}));
  const long double ffn =
      n(m.ffn) + n(m.moe.expert_ffn) * (n(m.moe.experts) + n(m.moe.shared_experts) + n(m.moe.top_k));
  const long double layer_params =
      4 * (n(m.heads) + n(at.kv_heads) + 2) * width * width + 3 * width * ffn + width * n(m.moe.experts);
  const long double params = n(m.layers) * layer_params + 2 * n(m.vocab) * width;
  const long double tokens = n(input.training.micro_batch) * n(input.training.context);
  const long double layer_activations =
      8 * tokens *
          (8 * width * (n(m.heads) + n(at.kv_heads) + 2 + n(m.moe.top_k) * n(p.expert_tp)) +
           4 * ffn * n(p.expert_tp) + n(m.moe.experts)) +
      2 * tokens * n(m.heads) * n(input.training.context);
  const long double schedule = 4 * n(p.pp) * (n(p.virtual_stages) + 2);
  const long double grid = n(p.gpus) + n(p.tp) * n(p.pp) * n(p.dp) * n(p.cp) * n(p.ep) * n(p.expert_tp);
  return 32 * params + schedule * n(m.layers) * layer_activations + 8 * tokens * n(m.vocab) +
         2 * n(input.offload.chunk_bytes) + grid;
}

void check_magnitude(const Checker& check, const PlanInput& input) {
  constexpr long double kLimit = 0x1p60L;
  check.require(magnitude_bound(input) < kLimit, "model",
                "the model and training sizes are too large to plan (over 2^60 bytes)");
}

}  // namespace

void check_plan_input(const PlanInput& input) {
  const Checker check(input);
  check_magnitude(check, input);
  check_grid(check, input.parallel);
  check_tensor_parallel(check, input);
  check_pipeline(check, input);
  check_experts(check, input);
}

}  // namespace dopant::planner
