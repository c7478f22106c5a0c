/* Compiles the ABI and runtime headers as strict C11 with -Wall -Wextra -pedantic -Werror
 * (the build failing is the test), reports the struct sizes C sees, and uses every
 * initializer macro the way a C author would, so a macro that leaves a field out fails the
 * build (-Wmissing-field-initializers). */
#include "abi_sizes.h"

abi_sizes abi_sizes_c11(void) {
  const abi_sizes sizes = ABI_SIZES_MEASURED;
  return sizes;
}

static const dpt_param_decl c11_decl = {DPT_PARAM_DECL_FIELDS, .name = "lr"};
static const dpt_param_decl* const c11_decls[] = {&c11_decl};
static const dpt_optimizer_v1 c11_table = {DPT_OPTIMIZER_V1_FIELDS};
static const dpt_sandbox_v1 c11_sandbox_table = {DPT_SANDBOX_V1_FIELDS};
static const dpt_router_v1 c11_router_table = {DPT_ROUTER_V1_FIELDS};
static const dpt_parallel_v1 c11_parallel_table = {DPT_PARALLEL_V1_FIELDS};
static const dpt_checkpoint_v1 c11_checkpoint_table = {DPT_CHECKPOINT_V1_FIELDS};
static const void* c11_extension(const char* id) { return id != NULL ? &c11_table : NULL; }
static const dpt_plugin_descriptor c11_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS, .id = "c11", .params = c11_decls, .param_count = 1,
    .get_extension = c11_extension};
static const dpt_plugin_descriptor* const c11_plugins[] = {&c11_descriptor};
static const dpt_library c11_library = {DPT_LIBRARY_FIELDS, .plugins = c11_plugins,
                                        .plugin_count = 1};

/* The struct_size each initializer writes, in the order of abi_init_sizes_test. */
void abi_init_sizes_c11(uint32_t* out) {
  const dpt_step_args step = DPT_STEP_ARGS_INIT;
  const dpt_param_group group = DPT_PARAM_GROUP_INIT;
  const dpt_optimizer_memory memory = DPT_OPTIMIZER_MEMORY_INIT;
  const dpt_memory_stats stats = DPT_MEMORY_STATS_INIT;
  const dpt_runtime_options runtime = DPT_RUNTIME_OPTIONS_INIT;
  const dpt_device_options device = DPT_DEVICE_OPTIONS_INIT;
  const dpt_sandbox_acquire_args acquire = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
  const dpt_sandbox_box_args box = DPT_SANDBOX_BOX_ARGS_INIT;
  const dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  const dpt_sandbox_put_args put = DPT_SANDBOX_PUT_ARGS_INIT;
  const dpt_sandbox_get_args get = DPT_SANDBOX_GET_ARGS_INIT;
  const dpt_sandbox_stats sandbox_stats = DPT_SANDBOX_STATS_INIT;
  const dpt_route_args route = DPT_ROUTE_ARGS_INIT;
  const dpt_replay_session_args session = DPT_REPLAY_SESSION_ARGS_INIT;
  const dpt_replay_record_args record = DPT_REPLAY_RECORD_ARGS_INIT;
  const dpt_replay_emit_args emit = DPT_REPLAY_EMIT_ARGS_INIT;
  const dpt_replay_ingest_args ingest = DPT_REPLAY_INGEST_ARGS_INIT;
  const dpt_replay_rows_args rows = DPT_REPLAY_ROWS_ARGS_INIT;
  const dpt_parallel_sizes parallel_sizes = DPT_PARALLEL_SIZES_INIT;
  const dpt_parallel_layout_args layout = DPT_PARALLEL_LAYOUT_ARGS_INIT;
  const dpt_parallel_shard_args shard = DPT_PARALLEL_SHARD_ARGS_INIT;
  const dpt_parallel_topology topology = DPT_PARALLEL_TOPOLOGY_INIT;
  const dpt_dispatch_args dispatch = DPT_DISPATCH_ARGS_INIT;
  const dpt_combine_args combine = DPT_COMBINE_ARGS_INIT;
  const dpt_checkpoint_open_args open = DPT_CHECKPOINT_OPEN_ARGS_INIT;
  const dpt_checkpoint_list_args list = DPT_CHECKPOINT_LIST_ARGS_INIT;
  const dpt_checkpoint_read_args read = DPT_CHECKPOINT_READ_ARGS_INIT;
  const dpt_checkpoint_begin_args begin = DPT_CHECKPOINT_BEGIN_ARGS_INIT;
  const dpt_checkpoint_add_args add = DPT_CHECKPOINT_ADD_ARGS_INIT;
  const dpt_checkpoint_finalize_args finalize = DPT_CHECKPOINT_FINALIZE_ARGS_INIT;
  const dpt_checkpoint_convert_args convert = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  out[0] = step.struct_size;
  out[1] = group.struct_size;
  out[2] = memory.struct_size;
  out[3] = stats.struct_size;
  out[4] = runtime.struct_size;
  out[5] = device.struct_size;
  out[6] = c11_library.struct_size;
  out[7] = c11_library.abi_minor;
  out[8] = acquire.struct_size;
  out[9] = box.struct_size;
  out[10] = exec.struct_size;
  out[11] = put.struct_size;
  out[12] = get.struct_size;
  out[13] = sandbox_stats.struct_size;
  out[14] = c11_sandbox_table.struct_size;
  out[15] = route.struct_size;
  out[16] = c11_router_table.struct_size;
  out[17] = session.struct_size;
  out[18] = record.struct_size;
  out[19] = emit.struct_size;
  out[20] = ingest.struct_size;
  out[21] = rows.struct_size;
  out[22] = parallel_sizes.struct_size;
  out[23] = layout.struct_size;
  out[24] = shard.struct_size;
  out[25] = topology.struct_size;
  out[26] = dispatch.struct_size;
  out[27] = combine.struct_size;
  out[28] = c11_parallel_table.struct_size;
  out[29] = open.struct_size;
  out[30] = list.struct_size;
  out[31] = read.struct_size;
  out[32] = begin.struct_size;
  out[33] = add.struct_size;
  out[34] = finalize.struct_size;
  out[35] = convert.struct_size;
  out[36] = c11_checkpoint_table.struct_size;
}
