// Placement of layers on pipeline stages and of parameters on one GPU of a stage:
// embedding on the first stage, final norm and output head on the last.
#pragma once

#include "parameter_count.hpp"
#include "plan_input.hpp"

#include <cstdint>
#include <vector>

namespace dopant::planner {

struct StageLayout {
  uint64_t index = 0;
  uint64_t dense_layers = 0;
  uint64_t moe_layers = 0;
  bool has_embedding = false;
  bool has_output_head = false;

  uint64_t layers() const { return dense_layers + moe_layers; }
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

  uint64_t total() const { return non_expert + expert; }
};

RankParams rank_params(const ModelParams& params, const StageLayout& stage, const Parallelism& parallel);

}  // namespace dopant::planner
