// The Kimi-K2 example plan: stage layout, expert sharding, offload vs baseline, staging,
// and the in-flight micro-batches of the (interleaved) 1F1B schedule.
#include "memory_plan.hpp"
#include "plan_input_toml.hpp"
#include "plan_test_support.hpp"

#include <gtest/gtest.h>

namespace dopant::planner {
namespace {

PlanInput kimi_input() { return load_plan_input(test::example_path("kimi-k2-64xh200.toml")); }

TEST(KimiK2Plan, SixtyOneLayersOnEightStagesGiveTheRemainderToMiddleStages) {
  const MemoryPlan plan = plan_memory(kimi_input());
  ASSERT_EQ(plan.stages.size(), 8u);
  const uint64_t expected_layers[8] = {7, 8, 8, 8, 8, 8, 7, 7};
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(plan.stages[i].layout.layers(), expected_layers[i]) << i;
  EXPECT_EQ(plan.stages[0].layout.dense_layers, 1u);
  EXPECT_TRUE(plan.stages[0].layout.has_embedding);
  EXPECT_TRUE(plan.stages[7].layout.has_output_head);
}

// The worst-stage figures docs/results.md states, in GB (1e9 bytes) to its two decimals.
TEST(KimiK2Plan, WorstStageMatchesTheFiguresInResults) {
  const MemoryPlan plan = plan_memory(kimi_input());
  const auto gb = [](uint64_t bytes) { return static_cast<double>(bytes) / 1e9; };
  const MemoryBreakdown& base = plan.baseline_stage().baseline;
  EXPECT_NEAR(gb(base.weights), 36.19, 0.005);
  EXPECT_NEAR(gb(base.grads), 72.38, 0.005);
  EXPECT_NEAR(gb(base.master), 68.24, 0.005);
  EXPECT_NEAR(gb(base.moments), 136.47, 0.005);
  EXPECT_NEAR(gb(base.activations), 10.58, 0.005);
  EXPECT_NEAR(gb(base.total()), 323.87, 0.005);
  const MemoryBreakdown& offload = plan.offload_stage().offload;
  EXPECT_NEAR(gb(offload.staging), 0.54, 0.005);
  EXPECT_NEAR(gb(offload.total()), 119.69, 0.005);
  EXPECT_NEAR(gb(offload.total()) / gb(base.total()), 0.370, 0.0005);
}

TEST(KimiK2Plan, RoutedExpertsAreSplitOverEpWithoutReplication) {
  const PlanInput input = kimi_input();
  EXPECT_EQ(input.parallel.expert_dp(), 1u);
  const MemoryPlan plan = plan_memory(input);
  // Stage 1: 8 MoE layers, 384 / ep = 48 experts of 3 * 7168 * 2048 each.
  EXPECT_EQ(plan.stages[1].params.expert, 8ull * 48 * 3 * 7168 * 2048);
  // Expert state is not sharded (expert_dp 1); the rest shards over dp * cp = 8.
  EXPECT_EQ(plan.stages[1].baseline.moments,
            8 * (plan.stages[1].params.expert + (plan.stages[1].params.non_expert + 7) / 8));
}

TEST(KimiK2Plan, OffloadIsBelowBaselineAndMovesMasterAndMomentsToHost) {
  const MemoryPlan plan = plan_memory(kimi_input());
  for (const StagePlan& stage : plan.stages) {
    EXPECT_LT(stage.offload.total(), stage.baseline.total());
    EXPECT_EQ(stage.offload.master + stage.offload.moments, 0u);
    EXPECT_EQ(stage.offload_host_bytes, stage.baseline.master + stage.baseline.moments);
    EXPECT_EQ(stage.offload.total() + stage.offload_host_bytes,
              stage.baseline.total() + stage.offload.staging);
  }
  // The baseline does not fit a 141 GB H200; the offload does.
  EXPECT_GT(plan.baseline_stage().baseline.total(), 141e9);
  EXPECT_LT(plan.offload_stage().offload.total(), 141e9);
}

TEST(KimiK2Plan, StagingIsTwoChunks) {
  PlanInput input = kimi_input();
  EXPECT_EQ(plan_memory(input).offload_stage().offload.staging, 2ull * 256 * 1024 * 1024);
  input.offload.chunk_bytes = 64ull << 20;
  const MemoryPlan plan = plan_memory(input);
  for (const StagePlan& stage : plan.stages) EXPECT_EQ(stage.offload.staging, 2ull * (64 << 20));
}

TEST(KimiK2Plan, FirstStageHoldsPpMicroBatchesOfLayerInputs) {
  const PlanInput input = kimi_input();
  const MemoryPlan plan = plan_memory(input);
  const StageActivations& first = plan.stages[0].activations;
  EXPECT_EQ(first.chunks_in_flight, 8u);
  // Full recompute: each of the 7 layers keeps its bf16 input, 65536 / cp tokens x 7168.
  EXPECT_EQ(first.stored, 8 * 7 * (2ull * 8192 * 7168));
  EXPECT_EQ(first.recompute_working_set, layer_activation_bytes(input, true, Recompute::None));
}

TEST(PipelineSchedule, InterleavingAddsInFlightChunksOnTheFirstStage) {
  Parallelism p;
  p.pp = 4;
  EXPECT_EQ(chunks_in_flight(0, p), 4u);
  EXPECT_EQ(chunks_in_flight(3, p), 1u);
  p.virtual_stages = 2;
  // Megatron's warm-up 2*(pp - 1) + (v - 1)*pp, plus the one in progress: 11 chunks of half
  // a stage, i.e. pp * (1 + (pp - 1) / (pp * v)) = 5.5 micro-batches (Korthikanti et al.).
  EXPECT_EQ(chunks_in_flight(0, p), 11u);
  EXPECT_EQ(chunks_in_flight(3, p), 5u);
}

TEST(PipelineSchedule, InterleavedLayersCycleOverStages) {
  PlanInput input = kimi_input();
  input.model.layers = 64;
  input.parallel.virtual_stages = 2;
  const MemoryPlan plan = plan_memory(input);
  // 16 chunks of 4 layers; stage 0 holds chunks 0 and 8, so the dense layer 0.
  for (const StagePlan& stage : plan.stages) EXPECT_EQ(stage.layout.layers(), 8u);
  EXPECT_EQ(plan.stages[0].layout.dense_layers, 1u);
  EXPECT_EQ(plan.stages[0].activations.stored, plan.stages[0].activations.per_microbatch * 23 / 2);
}

}  // namespace
}  // namespace dopant::planner
