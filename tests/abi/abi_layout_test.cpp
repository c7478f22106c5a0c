// The LP64 layout of every released ABI struct and of the host-side C API's structs, as
// literals: the offset of each field and the size of each struct. abi_sizes_test compares
// language modes with each other, and the DPT_PIN_SIZE_LP64 assertions pin the size macros,
// but two fields of one size swapped, or a field moved, keep every size; these offsets
// catch that. Draft kinds (abi/dopant/draft/) are not pinned by design.
// Mutant killed: swapping `min_value` and `max_value` in dpt_param_decl compiles everywhere
// and passes abi_sizes_test, and fails ReleasedFieldOffsets.
#include <dopant/abi.h>
#include <dopant/runtime.h>
#include <gtest/gtest.h>

#include <cstddef>

namespace {

#if defined(__LP64__)
constexpr bool kLp64 = true;
#else
constexpr bool kLp64 = false;
#endif

TEST(AbiLayout, ReleasedFieldOffsets) {
  if (!kLp64) GTEST_SKIP() << "the pinned layout is LP64's";
  EXPECT_EQ(offsetof(dpt_extension, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_extension, type), 8u);
  EXPECT_EQ(offsetof(dpt_extension, next), 16u);
  EXPECT_EQ(offsetof(dpt_memory_stats, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_memory_stats, current_bytes), 8u);
  EXPECT_EQ(offsetof(dpt_memory_stats, peak_bytes), 16u);
  EXPECT_EQ(offsetof(dpt_memory_stats, limit_bytes), 24u);
  EXPECT_EQ(offsetof(dpt_memory_stats, allocation_count), 32u);
  EXPECT_EQ(offsetof(dpt_memory_stats, peak_demand_bytes), 40u);
  EXPECT_EQ(offsetof(dpt_param_decl, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_param_decl, name), 8u);
  EXPECT_EQ(offsetof(dpt_param_decl, type), 16u);
  EXPECT_EQ(offsetof(dpt_param_decl, default_value), 24u);
  EXPECT_EQ(offsetof(dpt_param_decl, min_value), 32u);
  EXPECT_EQ(offsetof(dpt_param_decl, max_value), 40u);
  EXPECT_EQ(offsetof(dpt_param_decl, choices), 48u);
  EXPECT_EQ(offsetof(dpt_param_decl, choice_count), 56u);
  EXPECT_EQ(offsetof(dpt_param_decl, unit), 64u);
  EXPECT_EQ(offsetof(dpt_param_decl, doc), 72u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, id), 8u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, kind), 16u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, version), 24u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, description), 32u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, params), 40u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, param_count), 48u);
  EXPECT_EQ(offsetof(dpt_plugin_descriptor, get_extension), 56u);
  EXPECT_EQ(offsetof(dpt_library, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_library, abi_major), 4u);
  EXPECT_EQ(offsetof(dpt_library, abi_minor), 8u);
  EXPECT_EQ(offsetof(dpt_library, id), 16u);
  EXPECT_EQ(offsetof(dpt_library, version), 24u);
  EXPECT_EQ(offsetof(dpt_library, init), 32u);
  EXPECT_EQ(offsetof(dpt_library, plugins), 40u);
  EXPECT_EQ(offsetof(dpt_library, plugin_count), 48u);
  EXPECT_EQ(offsetof(dpt_library, deinit), 56u);
  EXPECT_EQ(offsetof(dpt_param_group, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_param_group, next), 8u);
  EXPECT_EQ(offsetof(dpt_param_group, name), 16u);
  EXPECT_EQ(offsetof(dpt_param_group, lr), 24u);
  EXPECT_EQ(offsetof(dpt_param_group, beta1), 32u);
  EXPECT_EQ(offsetof(dpt_param_group, beta2), 40u);
  EXPECT_EQ(offsetof(dpt_param_group, eps), 48u);
  EXPECT_EQ(offsetof(dpt_param_group, weight_decay), 56u);
  EXPECT_EQ(offsetof(dpt_param_group, tensor_count), 64u);
  EXPECT_EQ(offsetof(dpt_param_group, tensor_names), 72u);
  EXPECT_EQ(offsetof(dpt_param_group, params), 80u);
  EXPECT_EQ(offsetof(dpt_param_group, grads), 88u);
  EXPECT_EQ(offsetof(dpt_step_args, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_step_args, next), 8u);
  EXPECT_EQ(offsetof(dpt_step_args, lr_scale), 16u);
  EXPECT_EQ(offsetof(dpt_step_args, grad_scale), 24u);
  EXPECT_EQ(offsetof(dpt_step_args, grad_count), 32u);
  EXPECT_EQ(offsetof(dpt_step_args, grads), 40u);
  EXPECT_EQ(offsetof(dpt_optimizer_memory, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_optimizer_memory, device_state_bytes), 8u);
  EXPECT_EQ(offsetof(dpt_optimizer_memory, host_state_bytes), 16u);
  EXPECT_EQ(offsetof(dpt_optimizer_memory, device_staging_bytes), 24u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, create), 8u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, destroy), 16u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, add_param_group), 24u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, step), 32u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, export_state), 40u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, import_state), 48u);
  EXPECT_EQ(offsetof(dpt_optimizer_v1, memory), 56u);
  EXPECT_EQ(offsetof(dpt_sandbox_acquire_args, next), 8u);
  EXPECT_EQ(offsetof(dpt_sandbox_acquire_args, box), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_box_args, next), 8u);
  EXPECT_EQ(offsetof(dpt_sandbox_box_args, box), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, next), 8u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, box), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, argv), 24u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, env), 32u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, cwd), 40u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stdin_data), 48u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stdin_bytes), 56u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, timeout_ms), 64u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, exit_code), 72u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, signal), 76u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, timed_out), 80u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, killed_for_memory), 84u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stdout_truncated), 88u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stderr_truncated), 92u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stdout_data), 96u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stdout_bytes), 104u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stderr_data), 112u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, stderr_bytes), 120u);
  EXPECT_EQ(offsetof(dpt_sandbox_exec_args, wall_ns), 128u);
  EXPECT_EQ(offsetof(dpt_sandbox_put_args, box), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_put_args, path), 24u);
  EXPECT_EQ(offsetof(dpt_sandbox_put_args, data), 32u);
  EXPECT_EQ(offsetof(dpt_sandbox_put_args, bytes), 40u);
  EXPECT_EQ(offsetof(dpt_sandbox_put_args, mode), 48u);
  EXPECT_EQ(offsetof(dpt_sandbox_get_args, box), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_get_args, path), 24u);
  EXPECT_EQ(offsetof(dpt_sandbox_get_args, data), 32u);
  EXPECT_EQ(offsetof(dpt_sandbox_get_args, bytes), 40u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, enforced), 4u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, boxes_started), 8u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, boxes_in_use), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, boxes_idle), 24u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, boxes_replaced), 32u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, execs), 40u);
  EXPECT_EQ(offsetof(dpt_sandbox_stats, timeouts), 48u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, create), 8u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, destroy), 16u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, acquire), 24u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, release), 32u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, exec), 40u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, put), 48u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, get), 56u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, reset), 64u);
  EXPECT_EQ(offsetof(dpt_sandbox_v1, stats), 72u);
  EXPECT_EQ(offsetof(dpt_runtime_options, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_runtime_options, plugin_path), 8u);
  EXPECT_EQ(offsetof(dpt_runtime_options, skip_default_paths), 16u);
  EXPECT_EQ(offsetof(dpt_runtime_options, log_level), 20u);
  EXPECT_EQ(offsetof(dpt_runtime_options, threads), 24u);
  EXPECT_EQ(offsetof(dpt_plugin_info, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_plugin_info, descriptor), 8u);
  EXPECT_EQ(offsetof(dpt_plugin_info, library_path), 16u);
  EXPECT_EQ(offsetof(dpt_plugin_info, library_id), 24u);
  EXPECT_EQ(offsetof(dpt_plugin_info, library_abi_minor), 32u);
  EXPECT_EQ(offsetof(dpt_workload_decl, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_workload_decl, name), 8u);
  EXPECT_EQ(offsetof(dpt_workload_decl, description), 16u);
  EXPECT_EQ(offsetof(dpt_workload_decl, params), 24u);
  EXPECT_EQ(offsetof(dpt_workload_decl, param_count), 32u);
  EXPECT_EQ(offsetof(dpt_workload_decl, slots), 40u);
  EXPECT_EQ(offsetof(dpt_workload_decl, slot_count), 48u);
  EXPECT_EQ(offsetof(dpt_device_options, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_device_options, kind), 8u);
  EXPECT_EQ(offsetof(dpt_device_options, index), 16u);
  EXPECT_EQ(offsetof(dpt_device_options, memory_limit), 24u);
  EXPECT_EQ(offsetof(dpt_metric, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_metric, name), 8u);
  EXPECT_EQ(offsetof(dpt_metric, value), 16u);
  EXPECT_EQ(offsetof(dpt_metric, unit), 24u);
  EXPECT_EQ(offsetof(dpt_metric, better), 32u);
  EXPECT_EQ(offsetof(dpt_host, struct_size), 0u);
  EXPECT_EQ(offsetof(dpt_host, abi_minor), 4u);
  EXPECT_EQ(offsetof(dpt_host, error), 8u);
  EXPECT_EQ(offsetof(dpt_host, error_free), 16u);
  EXPECT_EQ(offsetof(dpt_host, error_code), 24u);
  EXPECT_EQ(offsetof(dpt_host, error_message), 32u);
  EXPECT_EQ(offsetof(dpt_host, log), 40u);
  EXPECT_EQ(offsetof(dpt_host, alloc), 48u);
  EXPECT_EQ(offsetof(dpt_host, free), 56u);
  EXPECT_EQ(offsetof(dpt_host, memory_stats), 64u);
  EXPECT_EQ(offsetof(dpt_host, stream_create), 72u);
  EXPECT_EQ(offsetof(dpt_host, stream_destroy), 80u);
  EXPECT_EQ(offsetof(dpt_host, stream_synchronize), 88u);
  EXPECT_EQ(offsetof(dpt_host, copy), 96u);
  EXPECT_EQ(offsetof(dpt_host, event_create), 104u);
  EXPECT_EQ(offsetof(dpt_host, event_destroy), 112u);
  EXPECT_EQ(offsetof(dpt_host, event_record), 120u);
  EXPECT_EQ(offsetof(dpt_host, stream_wait_event), 128u);
  EXPECT_EQ(offsetof(dpt_host, event_synchronize), 136u);
  EXPECT_EQ(offsetof(dpt_host, stream_native), 144u);
  EXPECT_EQ(offsetof(dpt_host, device_is_gpu), 152u);
  EXPECT_EQ(offsetof(dpt_host, parallel_for), 160u);
  EXPECT_EQ(offsetof(dpt_host, thread_count), 168u);
  EXPECT_EQ(offsetof(dpt_host, metric), 176u);
  EXPECT_EQ(offsetof(dpt_host, is_cancelled), 184u);
  EXPECT_EQ(offsetof(dpt_host, config_bool), 192u);
  EXPECT_EQ(offsetof(dpt_host, config_int), 200u);
  EXPECT_EQ(offsetof(dpt_host, config_float), 208u);
  EXPECT_EQ(offsetof(dpt_host, config_string), 216u);
  EXPECT_EQ(offsetof(dpt_host, config_size), 224u);
  EXPECT_EQ(offsetof(dpt_host, host_data), 232u);
}

TEST(AbiLayout, ReleasedStructSizes) {
  if (!kLp64) GTEST_SKIP() << "the pinned layout is LP64's";
  EXPECT_EQ(sizeof(dpt_extension), 24u);
  EXPECT_EQ(sizeof(dpt_memory_stats), 48u);
  EXPECT_EQ(sizeof(dpt_param_decl), 80u);
  EXPECT_EQ(sizeof(dpt_plugin_descriptor), 64u);
  EXPECT_EQ(sizeof(dpt_library), 64u);
  EXPECT_EQ(sizeof(dpt_param_group), 96u);
  EXPECT_EQ(sizeof(dpt_step_args), 48u);
  EXPECT_EQ(sizeof(dpt_optimizer_memory), 32u);
  EXPECT_EQ(sizeof(dpt_optimizer_v1), 64u);
  EXPECT_EQ(sizeof(dpt_sandbox_acquire_args), 24u);
  EXPECT_EQ(sizeof(dpt_sandbox_box_args), 24u);
  EXPECT_EQ(sizeof(dpt_sandbox_exec_args), 136u);
  EXPECT_EQ(sizeof(dpt_sandbox_put_args), 56u);
  EXPECT_EQ(sizeof(dpt_sandbox_get_args), 48u);
  EXPECT_EQ(sizeof(dpt_sandbox_stats), 56u);
  EXPECT_EQ(sizeof(dpt_sandbox_v1), 80u);
  EXPECT_EQ(sizeof(dpt_runtime_options), 32u);
  EXPECT_EQ(sizeof(dpt_plugin_info), 40u);
  EXPECT_EQ(sizeof(dpt_workload_decl), 56u);
  EXPECT_EQ(sizeof(dpt_device_options), 32u);
  EXPECT_EQ(sizeof(dpt_metric), 40u);
  EXPECT_EQ(sizeof(dpt_host), 248u);
  EXPECT_EQ(DPT_DEVICE_OPTIONS_SIZE_1_0, 32u);
  EXPECT_EQ(DPT_HOST_SIZE_1_0, 240u);
  EXPECT_EQ(offsetof(dpt_host, get_extension), 240u);
  EXPECT_EQ(DPT_HOST_SIZE_1_4, 248u);
  EXPECT_EQ(DPT_LIBRARY_SIZE_1_0, 52u);
  EXPECT_EQ(DPT_LIBRARY_SIZE_1_3, 64u);
  EXPECT_EQ(DPT_MEMORY_STATS_SIZE_1_0, 40u);
  EXPECT_EQ(DPT_MEMORY_STATS_SIZE_1_2, 48u);
  EXPECT_EQ(DPT_METRIC_SIZE_1_0, 36u);
  EXPECT_EQ(DPT_OPTIMIZER_MEMORY_SIZE_1_0, 32u);
  EXPECT_EQ(DPT_OPTIMIZER_V1_SIZE_1_0, 56u);
  EXPECT_EQ(DPT_OPTIMIZER_V1_SIZE_1_1, 64u);
  EXPECT_EQ(DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, 24u);
  EXPECT_EQ(DPT_SANDBOX_BOX_ARGS_SIZE_1_4, 24u);
  EXPECT_EQ(DPT_SANDBOX_EXEC_ARGS_SIZE_1_4, 136u);
  EXPECT_EQ(DPT_SANDBOX_PUT_ARGS_SIZE_1_4, 52u);
  EXPECT_EQ(DPT_SANDBOX_GET_ARGS_SIZE_1_4, 48u);
  EXPECT_EQ(DPT_SANDBOX_STATS_SIZE_1_4, 56u);
  EXPECT_EQ(DPT_SANDBOX_V1_SIZE_1_4, 80u);
  EXPECT_EQ(DPT_PARAM_DECL_SIZE_1_0, 80u);
  EXPECT_EQ(DPT_PARAM_GROUP_SIZE_1_0, 96u);
  EXPECT_EQ(DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, 64u);
  EXPECT_EQ(DPT_PLUGIN_INFO_SIZE_1_0, 36u);
  EXPECT_EQ(DPT_RUNTIME_OPTIONS_SIZE_1_0, 28u);
  EXPECT_EQ(DPT_STEP_ARGS_SIZE_1_0, 32u);
  EXPECT_EQ(DPT_STEP_ARGS_SIZE_1_3, 48u);
  EXPECT_EQ(DPT_WORKLOAD_DECL_SIZE_1_0, 52u);
}

}  // namespace
