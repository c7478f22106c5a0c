// Weights, gradients and optimizer state per GPU.
#include "state_memory.hpp"

namespace dopant::planner {
namespace {

constexpr uint64_t kFp32Bytes = 4;
constexpr uint64_t kAdamMoments = 2;

uint64_t ceil_div(uint64_t value, uint64_t divisor) { return (value + divisor - 1) / divisor; }

}  // namespace

uint64_t optimizer_shard(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  if (!training.distributed_optimizer) return rank.total();
  return ceil_div(rank.non_expert, parallel.dense_dp()) + ceil_div(rank.expert, parallel.expert_dp());
}

StateBytes state_bytes(const RankParams& rank, const Parallelism& parallel, const Training& training) {
  const uint64_t shard = optimizer_shard(rank, parallel, training);
  StateBytes bytes;
  bytes.weights = rank.total() * bytes_of(training.precision);
  bytes.grads = rank.total() * bytes_of(training.grad_dtype);
  bytes.master = training.precision == DataType::Bf16 ? shard * kFp32Bytes : 0;
  bytes.moments = shard * kAdamMoments * kFp32Bytes;
  return bytes;
}

}  // namespace dopant::planner
