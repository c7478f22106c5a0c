// Layers to pipeline stages, and parameters to the GPUs of one stage.
#include "stage_placement.hpp"

namespace dopant::planner {
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

}  // namespace dopant::planner
