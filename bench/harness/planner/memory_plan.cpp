// Builds the baseline and chunked-offload breakdowns for every stage and finds the worst.
#include "memory_plan.hpp"

namespace dopant::planner {
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
