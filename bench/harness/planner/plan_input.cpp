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
  const uint64_t product = mul(p.tp, p.pp, p.dp, p.cp);
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
    const uint64_t tokens = mul(input.training.micro_batch, input.training.context) / input.parallel.cp;
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
    check.divides(mul(p.pp, p.virtual_stages), "parallel.virtual_stages", layers,
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
  check.divides(p.tp, "parallel.tp", mul(moe.shared_experts, moe.expert_ffn),
                "the shared-expert FFN (shared_experts*expert_ffn)");
  check.require(mul(p.tp, p.cp, p.dp) % mul(p.ep, p.expert_tp) == 0, "parallel.ep",
                "ep*expert_tp = " + std::to_string(mul(p.ep, p.expert_tp)) +
                    " does not divide tp*cp*dp = " + std::to_string(mul(p.tp, p.cp, p.dp)) +
                    " (experts fold into the ranks of one pipeline stage)");
  check.require(p.tp == 1 || p.sequence_parallel, "parallel.sequence_parallel",
                "`parallel.sequence_parallel` must be true for MoE with tp > 1");
}

}  // namespace

void check_plan_input(const PlanInput& input) {
  const Checker check(input);
  try {
    check_grid(check, input.parallel);
    check_tensor_parallel(check, input);
    check_pipeline(check, input);
    check_experts(check, input);
  } catch (const PlanSizeOverflow&) {
    fail_too_large(input);
  }
}

// The sizes a plan multiplies together; the largest of them is the likeliest culprit of an
// overflow, so the error points at it.
void fail_too_large(const PlanInput& input) {
  const ModelShape& model = input.model;
  const std::pair<const char*, uint64_t> sizes[] = {
      {"model.hidden", model.hidden},
      {"model.vocab", model.vocab},
      {"model.ffn", model.ffn},
      {"model.heads", model.heads},
      {"model.layers", model.layers},
      {"model.attention.kv_heads", model.attention.kv_heads},
      {"model.attention.head_dim", model.attention.head_dim},
      {"model.attention.q_lora_rank", model.attention.q_lora_rank},
      {"model.attention.kv_lora_rank", model.attention.kv_lora_rank},
      {"model.moe.experts", model.moe.experts},
      {"model.moe.expert_ffn", model.moe.expert_ffn},
      {"model.moe.shared_experts", model.moe.shared_experts},
      {"training.context", input.training.context},
      {"training.micro_batch", input.training.micro_batch},
      {"parallel.gpus", input.parallel.gpus},
      {"parallel.tp", input.parallel.tp},
      {"parallel.pp", input.parallel.pp},
      {"parallel.dp", input.parallel.dp},
      {"parallel.cp", input.parallel.cp},
      {"parallel.ep", input.parallel.ep},
      {"parallel.expert_tp", input.parallel.expert_tp},
      {"parallel.virtual_stages", input.parallel.virtual_stages},
  };
  const auto* largest = &sizes[0];
  for (const auto& size : sizes) {
    if (size.second > largest->second) largest = &size;
  }
  const auto position = input.positions.find(largest->first);
  fail_at(input.source, position != input.positions.end() ? position->second : kWholeFile,
          "the model, parallel and training sizes are too large to plan: a count or byte size passes 2^64 - 1 "
          "(the largest input is `" + std::string(largest->first) + "` = " + std::to_string(largest->second) + ")");
}

}  // namespace dopant::planner
