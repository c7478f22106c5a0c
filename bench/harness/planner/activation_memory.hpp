// Activation memory on one GPU: the tensors each layer keeps for backward (Korthikanti et
// al. 2022, "Reducing Activation Recomputation in Large Transformer Models", re-derived for
// GQA/MLA attention, SwiGLU and routed experts, with dropout 0), recompute options, and the
// number of micro-batches a pipeline stage holds in flight under (interleaved) 1F1B.
#pragma once

#include "plan_input.hpp"
#include "stage_placement.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::planner {

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

  uint64_t total() const { return stored + recompute_working_set + output_head; }
};

// Model chunks stage `stage` holds at the peak of the schedule: pp - stage micro-batches
// without interleaving; 2*(pp - stage - 1) + (virtual_stages - 1)*pp + 1 chunks with it.
uint64_t chunks_in_flight(uint64_t stage, const Parallelism& parallel);

StageActivations stage_activations(const PlanInput& input, const StageLayout& stage);

}  // namespace dopant::planner
