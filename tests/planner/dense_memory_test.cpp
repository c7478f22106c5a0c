// A Llama-2-7B-shaped dense model on 8 GPUs (tp 2 with sequence parallelism, pp 2, dp 2,
// 4K context, micro-batch 1): every figure of the plan computed by hand from docs/memory.md.
#include "memory_plan.hpp"
#include "plan_input_toml.hpp"

#include <gtest/gtest.h>

namespace dopant::planner {
namespace {

const char* const kDensePlan = R"(
[model]
name = "llama-7b-like"
layers = 32
hidden = 4096
heads = 32
vocab = 32000
ffn = 11008

[parallel]
gpus = 8
tp = 2
pp = 2
dp = 2

[training]
micro_batch = 1
context = 4096
recompute = "RECOMPUTE"

[offload]
chunk = "256MiB"
)";

PlanInput dense_input(const std::string& recompute) {
  std::string text = kDensePlan;
  text.replace(text.find("RECOMPUTE"), 9, recompute);
  return parse_plan_input(text, "dense.toml");
}

constexpr uint64_t h = 4096, ffn = 11008, vocab = 32000, tokens = 4096, tp = 2;
// One layer on one GPU: both norms replicated, q/k/v/o and the SwiGLU split over tp.
constexpr uint64_t kLayerParams = 2 * h + (4 * h * h + 3 * h * ffn) / tp;   // 101,195,776
constexpr uint64_t kStage0Params = 16 * kLayerParams + vocab * h / tp;      // + embedding
constexpr uint64_t kStage1Params = 16 * kLayerParams + vocab * h / tp + h;  // + head, final norm

// Selective recompute keeps, per layer and micro-batch (bf16, T = 4096 tokens):
// residuals 2 x 2Th/tp, q/k/v 2T(3h)/tp, attention output 2Th/tp, log-sum-exp 4T*heads/tp,
// SwiGLU input 2T(2 ffn)/tp. Norm outputs and the SwiGLU output are recomputed.
constexpr uint64_t kSelectiveLayer = 2 * (2 * tokens * h / tp) + 2 * tokens * 3 * h / tp +
                                     2 * tokens * h / tp + 4 * tokens * 32 / tp + 2 * tokens * 2 * ffn / tp;
constexpr uint64_t kRecomputedBySelective = 2 * (2 * tokens * h / tp) + 2 * tokens * ffn / tp;

TEST(DenseMemory, ParametersPerGpuPerStage) {
  const MemoryPlan plan = plan_memory(dense_input("selective"));
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(kLayerParams, 101195776u);
  EXPECT_EQ(plan.stages[0].params.total(), kStage0Params);
  EXPECT_EQ(plan.stages[1].params.total(), kStage1Params);
  EXPECT_EQ(plan.stages[0].params.expert, 0u);
}

TEST(DenseMemory, SelectiveRecomputeBaselineMatchesHandComputation) {
  const MemoryPlan plan = plan_memory(dense_input("selective"));
  EXPECT_EQ(kSelectiveLayer, 191102976u);
  // Stage 0 holds pp = 2 micro-batches of its 16 layers; it is the worst stage.
  ASSERT_EQ(plan.worst_baseline, 0u);
  const MemoryBreakdown& m = plan.baseline_stage().baseline;
  EXPECT_EQ(m.weights, 2 * kStage0Params);
  EXPECT_EQ(m.grads, 4 * kStage0Params);
  EXPECT_EQ(m.master, 4 * (kStage0Params / 2));  // sharded over dp = 2 (kStage0Params is even)
  EXPECT_EQ(m.moments, 8 * (kStage0Params / 2));
  EXPECT_EQ(m.activations, 2 * 16 * kSelectiveLayer);
  EXPECT_EQ(m.staging, 0u);
  EXPECT_EQ(m.total(), 26331316224u);
}

TEST(DenseMemory, LastStageKeepsOneMicroBatchAndTheLogits) {
  const MemoryPlan plan = plan_memory(dense_input("selective"));
  const StageActivations& act = plan.stages[1].activations;
  EXPECT_EQ(act.chunks_in_flight, 1u);
  EXPECT_EQ(act.stored, 16 * kSelectiveLayer);
  // Final-norm and head inputs (bf16, sequence parallel) and fp32 logits split over tp.
  EXPECT_EQ(act.output_head, 2 * (2 * tokens * h / tp) + 4 * tokens * vocab / tp);
  EXPECT_EQ(plan.stages[1].baseline.total(), 12 * kStage1Params + 16 * kSelectiveLayer + act.output_head);
}

TEST(DenseMemory, OffloadKeepsWeightsGradsActivationsAndTwoChunks) {
  const MemoryPlan plan = plan_memory(dense_input("selective"));
  ASSERT_EQ(plan.worst_offload, 0u);
  const MemoryBreakdown& m = plan.offload_stage().offload;
  EXPECT_EQ(m.master, 0u);
  EXPECT_EQ(m.moments, 0u);
  EXPECT_EQ(m.staging, 2u * 256 * 1024 * 1024);
  EXPECT_EQ(m.total(), 6 * kStage0Params + 2 * 16 * kSelectiveLayer + 2u * 256 * 1024 * 1024);
  EXPECT_EQ(m.total(), 16760176640u);
  EXPECT_EQ(plan.offload_stage().offload_host_bytes, 12 * (kStage0Params / 2));
}

TEST(DenseMemory, NoRecomputeKeepsEveryTerm) {
  const MemoryPlan plan = plan_memory(dense_input("none"));
  EXPECT_EQ(plan.stages[0].activations.stored, 2 * 16 * (kSelectiveLayer + kRecomputedBySelective));
}

TEST(DenseMemory, FullRecomputeKeepsLayerInputsPlusOneLayerWorkingSet) {
  const MemoryPlan plan = plan_memory(dense_input("full"));
  const StageActivations& act = plan.stages[0].activations;
  EXPECT_EQ(act.stored, 2 * 16 * (2 * tokens * h / tp));
  EXPECT_EQ(act.recompute_working_set, kSelectiveLayer + kRecomputedBySelective);
  EXPECT_EQ(act.total(), 806617088u);
}

}  // namespace
}  // namespace dopant::planner
