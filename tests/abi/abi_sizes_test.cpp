// The header-check TUs compiled (C11, C++17, C++20 under -Werror); here their struct sizes
// must agree with each other and with the pinned size macros seen by this TU.
#include <gtest/gtest.h>

#include "abi_sizes.h"

#include <cmath>

namespace {

#define ABI_SIZES_NAME(TYPE, PINNED) #PINNED,
const char* const kNames[ABI_SIZED_COUNT] = {ABI_SIZED_STRUCTS(ABI_SIZES_NAME)};
const abi_sizes kHere = ABI_SIZES_MEASURED;

void expect_same(const abi_sizes& mode, const char* mode_name) {
  for (int i = 0; i < ABI_SIZED_COUNT; ++i) {
    EXPECT_EQ(mode.pinned[i], kHere.pinned[i]) << kNames[i] << " in " << mode_name;
    EXPECT_EQ(mode.whole[i], kHere.whole[i]) << "sizeof for " << kNames[i] << " in " << mode_name;
  }
}

TEST(AbiSizes, PinnedSizesFitTheirStructs) {
  for (int i = 0; i < ABI_SIZED_COUNT; ++i) {
    EXPECT_GT(kHere.pinned[i], 0u) << kNames[i];
    EXPECT_LE(kHere.pinned[i], kHere.whole[i]) << kNames[i];
  }
}

// The initializer macros, as C fills them in: each writes its struct's latest size.
TEST(AbiSizes, InitializerMacrosWriteTheLatestSizes) {
  uint32_t sizes[37] = {};
  abi_init_sizes_c11(sizes);
  EXPECT_EQ(sizes[0], DPT_STEP_ARGS_SIZE_1_3);
  EXPECT_EQ(sizes[1], DPT_PARAM_GROUP_SIZE_1_0);
  EXPECT_EQ(sizes[2], DPT_OPTIMIZER_MEMORY_SIZE_1_0);
  EXPECT_EQ(sizes[3], DPT_MEMORY_STATS_SIZE_1_2);
  EXPECT_EQ(sizes[4], DPT_RUNTIME_OPTIONS_SIZE_1_0);
  EXPECT_EQ(sizes[5], DPT_DEVICE_OPTIONS_SIZE_1_0);
  EXPECT_EQ(sizes[6], DPT_LIBRARY_SIZE_1_3);
  EXPECT_EQ(sizes[7], static_cast<uint32_t>(DPT_ABI_MINOR));
  EXPECT_EQ(sizes[8], DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4);
  EXPECT_EQ(sizes[9], DPT_SANDBOX_BOX_ARGS_SIZE_1_4);
  EXPECT_EQ(sizes[10], DPT_SANDBOX_EXEC_ARGS_SIZE_1_4);
  EXPECT_EQ(sizes[11], DPT_SANDBOX_PUT_ARGS_SIZE_1_4);
  EXPECT_EQ(sizes[12], DPT_SANDBOX_GET_ARGS_SIZE_1_4);
  EXPECT_EQ(sizes[13], DPT_SANDBOX_STATS_SIZE_1_4);
  EXPECT_EQ(sizes[14], sizeof(dpt_sandbox_v1));
  EXPECT_EQ(sizes[15], DPT_ROUTE_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[16], sizeof(dpt_router_v1));
  EXPECT_EQ(sizes[17], DPT_REPLAY_SESSION_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[18], DPT_REPLAY_RECORD_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[19], DPT_REPLAY_EMIT_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[20], DPT_REPLAY_INGEST_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[21], DPT_REPLAY_ROWS_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[22], DPT_PARALLEL_SIZES_SIZE_1_5);
  EXPECT_EQ(sizes[23], DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[24], DPT_PARALLEL_SHARD_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[25], DPT_PARALLEL_TOPOLOGY_SIZE_1_5);
  EXPECT_EQ(sizes[26], DPT_DISPATCH_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[27], DPT_COMBINE_ARGS_SIZE_1_5);
  EXPECT_EQ(sizes[28], sizeof(dpt_parallel_v1));
  EXPECT_EQ(sizes[29], DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[30], DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[31], DPT_CHECKPOINT_READ_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[32], DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[33], DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[34], DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[35], DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6);
  EXPECT_EQ(sizes[36], sizeof(dpt_checkpoint_v1));
}

// The defaults the initializers document.
TEST(AbiSizes, InitializerMacrosHoldTheDocumentedDefaults) {
  const dpt_step_args step = DPT_STEP_ARGS_INIT;
  EXPECT_EQ(step.lr_scale, 1.0);
  EXPECT_EQ(step.grad_scale, 1.0);
  EXPECT_EQ(step.grad_count, 0u);
  EXPECT_EQ(step.grads, nullptr);
  const dpt_param_group group = DPT_PARAM_GROUP_INIT;
  EXPECT_TRUE(std::isnan(group.lr) && std::isnan(group.beta1) && std::isnan(group.beta2) &&
              std::isnan(group.eps) && std::isnan(group.weight_decay));
  EXPECT_EQ(group.tensor_count, 0u);
  const dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  EXPECT_EQ(exec.exit_code, -1);
  EXPECT_EQ(exec.env, nullptr);
  EXPECT_EQ(exec.timeout_ms, 0u);
  const dpt_parallel_shard_args shard = DPT_PARALLEL_SHARD_ARGS_INIT;
  EXPECT_EQ(shard.split, DPT_SHARD_REPLICATED);
  EXPECT_EQ(shard.shards, 1u);
  const dpt_parallel_topology topology = DPT_PARALLEL_TOPOLOGY_INIT;
  EXPECT_EQ(topology.comm, nullptr);
  EXPECT_EQ(topology.placement_offsets, nullptr);
  const dpt_dispatch_args dispatch = DPT_DISPATCH_ARGS_INIT;
  EXPECT_EQ(dispatch.expert_tokens.data, nullptr);
  EXPECT_EQ(dispatch.local_experts.ndim, 0);
  EXPECT_EQ(dispatch.bytes_sent, 0u);
  const dpt_checkpoint_convert_args convert = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  EXPECT_EQ(convert.max_shard_bytes, 0u);
  EXPECT_EQ(convert.progress, nullptr);
  EXPECT_EQ(convert.files_written, 0u);
  const dpt_runtime_options runtime = DPT_RUNTIME_OPTIONS_INIT;
  EXPECT_EQ(runtime.log_level, DPT_LOG_WARN);
  EXPECT_EQ(runtime.plugin_path, nullptr);
  const dpt_device_options device = DPT_DEVICE_OPTIONS_INIT;
  EXPECT_STREQ(device.kind, "cpu");
  EXPECT_EQ(device.memory_limit, 0u);
  const dpt_route_args route = DPT_ROUTE_ARGS_INIT;
  EXPECT_EQ(route.top_k, 0u);
  EXPECT_EQ(route.correction_bias, nullptr);
  EXPECT_EQ(route.recorded_ids, nullptr);
  EXPECT_EQ(route.expert_load, nullptr);
}

TEST(AbiSizes, C11SeesTheSameLayout) { expect_same(abi_sizes_c11(), "C11"); }
TEST(AbiSizes, Cxx17SeesTheSameLayout) { expect_same(abi_sizes_cxx17(), "C++17"); }
TEST(AbiSizes, Cxx20SeesTheSameLayout) { expect_same(abi_sizes_cxx20(), "C++20"); }

}  // namespace
