// Bytes of weights, gradients, fp32 master weights and Adam moments on one GPU, under the
// distributed optimizer (ZeRO-1: optimizer state sharded over the data-parallel group).
#pragma once

#include "plan_input.hpp"
#include "stage_placement.hpp"

#include <cstdint>

namespace dopant::planner {

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

}  // namespace dopant::planner
