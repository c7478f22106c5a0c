/* The struct sizes of the ABI and of the host-side C API as one language mode sees them.
 * Each header-check TU (C11, C++17, C++20, all -Wall -Wextra -pedantic -Werror) fills an
 * abi_sizes from the same macros; abi_sizes_test compares the modes with each other. */
#ifndef DOPANT_TESTS_ABI_SIZES_H
#define DOPANT_TESTS_ABI_SIZES_H

#include <dopant/abi.h>
#include <dopant/runtime.h>

/* X(struct type, size macro) for every released struct size. */
#define ABI_SIZED_STRUCTS(X)                                 \
  X(dpt_memory_stats, DPT_MEMORY_STATS_SIZE_1_0)             \
  X(dpt_memory_stats, DPT_MEMORY_STATS_SIZE_1_2)             \
  X(dpt_host, DPT_HOST_SIZE_1_0)                             \
  X(dpt_host, DPT_HOST_SIZE_1_4)                             \
  X(dpt_param_decl, DPT_PARAM_DECL_SIZE_1_0)                 \
  X(dpt_plugin_descriptor, DPT_PLUGIN_DESCRIPTOR_SIZE_1_0)   \
  X(dpt_library, DPT_LIBRARY_SIZE_1_0)                       \
  X(dpt_library, DPT_LIBRARY_SIZE_1_3)                       \
  X(dpt_param_group, DPT_PARAM_GROUP_SIZE_1_0)               \
  X(dpt_step_args, DPT_STEP_ARGS_SIZE_1_0)                   \
  X(dpt_step_args, DPT_STEP_ARGS_SIZE_1_3)                   \
  X(dpt_optimizer_memory, DPT_OPTIMIZER_MEMORY_SIZE_1_0)     \
  X(dpt_optimizer_v1, DPT_OPTIMIZER_V1_SIZE_1_0)             \
  X(dpt_optimizer_v1, DPT_OPTIMIZER_V1_SIZE_1_1)             \
  X(dpt_sandbox_acquire_args, DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4) \
  X(dpt_sandbox_box_args, DPT_SANDBOX_BOX_ARGS_SIZE_1_4)     \
  X(dpt_sandbox_exec_args, DPT_SANDBOX_EXEC_ARGS_SIZE_1_4)   \
  X(dpt_sandbox_put_args, DPT_SANDBOX_PUT_ARGS_SIZE_1_4)     \
  X(dpt_sandbox_get_args, DPT_SANDBOX_GET_ARGS_SIZE_1_4)     \
  X(dpt_sandbox_stats, DPT_SANDBOX_STATS_SIZE_1_4)           \
  X(dpt_sandbox_v1, DPT_SANDBOX_V1_SIZE_1_4)                 \
  X(dpt_route_args, DPT_ROUTE_ARGS_SIZE_1_5)                 \
  X(dpt_router_v1, DPT_ROUTER_V1_SIZE_1_5)                   \
  X(dpt_replay_session_args, DPT_REPLAY_SESSION_ARGS_SIZE_1_5) \
  X(dpt_replay_record_args, DPT_REPLAY_RECORD_ARGS_SIZE_1_5)   \
  X(dpt_replay_emit_args, DPT_REPLAY_EMIT_ARGS_SIZE_1_5)       \
  X(dpt_replay_ingest_args, DPT_REPLAY_INGEST_ARGS_SIZE_1_5)   \
  X(dpt_replay_rows_args, DPT_REPLAY_ROWS_ARGS_SIZE_1_5)       \
  X(dpt_router_replay_v1, DPT_ROUTER_REPLAY_V1_SIZE_1_5)       \
  X(dpt_parallel_sizes, DPT_PARALLEL_SIZES_SIZE_1_5)         \
  X(dpt_parallel_layout_args, DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5) \
  X(dpt_parallel_shard_args, DPT_PARALLEL_SHARD_ARGS_SIZE_1_5) \
  X(dpt_parallel_topology, DPT_PARALLEL_TOPOLOGY_SIZE_1_5)   \
  X(dpt_dispatch_args, DPT_DISPATCH_ARGS_SIZE_1_5)           \
  X(dpt_combine_args, DPT_COMBINE_ARGS_SIZE_1_5)             \
  X(dpt_parallel_v1, DPT_PARALLEL_V1_SIZE_1_5)               \
  X(dpt_host_comm_v1, DPT_HOST_COMM_V1_SIZE_1_5)             \
  X(dpt_checkpoint_chunk, DPT_CHECKPOINT_CHUNK_SIZE_1_6)     \
  X(dpt_checkpoint_tensor, DPT_CHECKPOINT_TENSOR_SIZE_1_6)   \
  X(dpt_checkpoint_open_args, DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_list_args, DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_read_args, DPT_CHECKPOINT_READ_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_begin_args, DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_add_args, DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_finalize_args, DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_v1, DPT_CHECKPOINT_V1_SIZE_1_6)           \
  X(dpt_checkpoint_convert_args, DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6) \
  X(dpt_checkpoint_convert_v1, DPT_CHECKPOINT_CONVERT_V1_SIZE_1_6) \
  X(dpt_runtime_options, DPT_RUNTIME_OPTIONS_SIZE_1_0)       \
  X(dpt_plugin_info, DPT_PLUGIN_INFO_SIZE_1_0)               \
  X(dpt_workload_decl, DPT_WORKLOAD_DECL_SIZE_1_0)           \
  X(dpt_device_options, DPT_DEVICE_OPTIONS_SIZE_1_0)         \
  X(dpt_metric, DPT_METRIC_SIZE_1_0)

#define ABI_SIZES_COUNT_ONE(TYPE, PINNED) +1
enum { ABI_SIZED_COUNT = 0 ABI_SIZED_STRUCTS(ABI_SIZES_COUNT_ONE) };

typedef struct abi_sizes {
  size_t pinned[ABI_SIZED_COUNT]; /* the DPT_*_SIZE_* macro          */
  size_t whole[ABI_SIZED_COUNT];  /* sizeof the struct, padding too  */
} abi_sizes;

#define ABI_SIZES_PINNED_VALUE(TYPE, PINNED) PINNED,
#define ABI_SIZES_WHOLE_VALUE(TYPE, PINNED) sizeof(TYPE),
/* An initializer measuring every struct in the current language mode. */
#define ABI_SIZES_MEASURED                            \
  {                                                   \
    {ABI_SIZED_STRUCTS(ABI_SIZES_PINNED_VALUE)},      \
    {ABI_SIZED_STRUCTS(ABI_SIZES_WHOLE_VALUE)}        \
  }

DPT_EXTERN_C abi_sizes abi_sizes_c11(void);
DPT_EXTERN_C abi_sizes abi_sizes_cxx17(void);
DPT_EXTERN_C abi_sizes abi_sizes_cxx20(void);
/* struct_size written by each initializer macro in C, and the library's abi_minor. */
DPT_EXTERN_C void abi_init_sizes_c11(uint32_t* out);

#endif
