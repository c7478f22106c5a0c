// The per-GPU peak-memory plan, step by step: parameter counts of the model, their
// placement on pipeline stages and tensor/expert ranks, optimizer-state and activation
// memory, and the plan that puts them together for the baseline and the chunked offload.
#pragma once

#include "plan_input.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dopant::planner {

// Parameter counts of a decoder-only transformer with GQA or MLA attention, SwiGLU FFNs and
// optional DeepSeek-V3-style MoE layers (routed + shared experts), untied output head.
// Counts are split by how tensor parallelism treats them, which placement needs.

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
    return sum(norms, attention_sharded, attention_replicated, dense_ffn, shared_experts, router, routed_experts);
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

// Placement of layers on pipeline stages and of parameters on one GPU of a stage:
// embedding on the first stage, final norm and output head on the last.

struct StageLayout {
  uint64_t index = 0;
  uint64_t dense_layers = 0;
  uint64_t moe_layers = 0;
  bool has_embedding = false;
  bool has_output_head = false;

  uint64_t layers() const { return sum(dense_layers, moe_layers); }
};

// One layout per pipeline stage. Without interleaving, stages hold contiguous blocks of
// layers/pp layers; the remainder goes one each to the middle stages first (1, 2, ...), then
// to the first and the last stage, which also carry the embedding and the head. With
// virtual_stages v, layers form pp*v equal chunks and chunk c lives on stage c mod pp.
std::vector<StageLayout> place_layers(const ModelShape& model, const Parallelism& parallel);

// Parameters held by one GPU of a stage.
struct RankParams {
  uint64_t non_expert = 0;  // replicated over dp*cp; its optimizer state shards over dp*cp
  uint64_t expert = 0;      // routed experts; optimizer state shards over expert_dp

  uint64_t total() const { return sum(non_expert, expert); }
};

RankParams rank_params(const ModelParams& params, const StageLayout& stage, const Parallelism& parallel);

// Bytes of weights, gradients, fp32 master weights and Adam moments on one GPU, under the
// distributed optimizer (ZeRO-1: optimizer state sharded over the data-parallel group).

struct StateBytes {
  uint64_t weights = 0;  // every held parameter in the parameter dtype
  uint64_t grads = 0;    // every held parameter in the gradient dtype (the reduce buffer)
  uint64_t master = 0;   // fp32 copy of this GPU's optimizer shard (bf16 parameters only)
  uint64_t moments = 0;  // Adam m and v in fp32 for this GPU's optimizer shard
};

// Parameters whose optimizer state this GPU owns: ceil(non_expert / (dp*cp)) +
// ceil(expert / expert_dp) with the distributed optimizer, all held parameters without it.
uint64_t optimizer_shard(const RankParams& rank, const Parallelism& parallel, const Training& training);

StateBytes state_bytes(const RankParams& rank, const Parallelism& parallel, const Training& training);

// Activation memory on one GPU: the tensors each layer keeps for backward (Korthikanti et
// al. 2022, "Reducing Activation Recomputation in Large Transformer Models", re-derived for
// GQA/MLA attention, SwiGLU and routed experts, with dropout 0), recompute options, and the
// number of micro-batches a pipeline stage holds in flight under (interleaved) 1F1B.

// One saved tensor of one layer, for one micro-batch, on one GPU.
struct ActivationTerm {
  std::string name;
  uint64_t bytes = 0;
  bool recomputed_by_selective = false;  // dropped by "selective" recompute
};

// Every tensor a layer keeps without recompute.
std::vector<ActivationTerm> layer_activation_terms(const PlanInput& input, bool moe_layer);

// Bytes a layer keeps per micro-batch under `recompute`: all terms (none), the terms not
// recomputed (selective), or the layer input alone (full).
uint64_t layer_activation_bytes(const PlanInput& input, bool moe_layer, Recompute recompute);

struct StageActivations {
  uint64_t per_microbatch = 0;         // bytes the stage's layers keep for one micro-batch
  uint64_t chunks_in_flight = 0;       // model chunks (of 1/virtual_stages of the stage) held
  uint64_t stored = 0;                 // per_microbatch * chunks_in_flight / virtual_stages
  uint64_t recompute_working_set = 0;  // full recompute: one layer re-materialized in backward
  uint64_t output_head = 0;            // last stage: final norm + head inputs, fp32 logits

  uint64_t total() const { return sum(stored, recompute_working_set, output_head); }
};

// Model chunks stage `stage` holds at the peak of the schedule: pp - stage micro-batches
// without interleaving; 2*(pp - stage - 1) + (virtual_stages - 1)*pp + 1 chunks with it.
uint64_t chunks_in_flight(uint64_t stage, const Parallelism& parallel);

StageActivations stage_activations(const PlanInput& input, const StageLayout& stage);

// The per-GPU peak-memory plan: for every pipeline stage, the baseline (all optimizer state
// on the device) and the chunked offload (fp32 master weights and Adam moments in pinned
// host memory, streamed through two device slots of one chunk each); the worst stage of each.

// Device bytes on one GPU, by component.
struct MemoryBreakdown {
  uint64_t weights = 0;
  uint64_t grads = 0;
  uint64_t master = 0;
  uint64_t moments = 0;
  uint64_t activations = 0;
  uint64_t staging = 0;  // offload: the two chunk slots

  uint64_t total() const { return sum(weights, grads, master, moments, activations, staging); }
};

// Device slots the chunked offload streams optimizer chunks through.
inline constexpr uint64_t kOffloadSlots = 2;

struct StagePlan {
  StageLayout layout;
  RankParams params;
  StageActivations activations;
  MemoryBreakdown baseline;
  MemoryBreakdown offload;
  uint64_t offload_host_bytes = 0;  // master + moments that live in pinned host memory
};

struct MemoryPlan {
  ModelParams params;
  std::vector<StagePlan> stages;
  std::size_t worst_baseline = 0;  // index of the stage with the largest baseline total
  std::size_t worst_offload = 0;

  const StagePlan& baseline_stage() const { return stages[worst_baseline]; }
  const StagePlan& offload_stage() const { return stages[worst_offload]; }
};

// Throws PlanSizeOverflow when a size passes 64 bits (check_plan_input's limits allow it
// only for absurd models).
MemoryPlan plan_memory(const PlanInput& input);

}  // namespace dopant::planner
