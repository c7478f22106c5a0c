// The per-GPU peak-memory plan: for every pipeline stage, the baseline (all optimizer state
// on the device) and the chunked offload (fp32 master weights and Adam moments in pinned
// host memory, streamed through two device slots of one chunk each); the worst stage of each.
#pragma once

#include "activation_memory.hpp"
#include "parameter_count.hpp"
#include "plan_input.hpp"
#include "stage_placement.hpp"
#include "state_memory.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dopant::planner {

// Device bytes on one GPU, by component.
struct MemoryBreakdown {
  uint64_t weights = 0;
  uint64_t grads = 0;
  uint64_t master = 0;
  uint64_t moments = 0;
  uint64_t activations = 0;
  uint64_t staging = 0;  // offload: the two chunk slots

  uint64_t total() const { return weights + grads + master + moments + activations + staging; }
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

MemoryPlan plan_memory(const PlanInput& input);

}  // namespace dopant::planner
