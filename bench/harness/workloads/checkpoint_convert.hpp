// The checkpoint-convert workload: Megatron torch_dist -> Hugging Face safetensors on a
// generated Kimi-K2-shaped MoE checkpoint, timed against a plain copy of the same files.
#pragma once

#include <dopant/runtime.h>

namespace dopant::workloads {

extern const dpt_workload_decl checkpoint_convert_decl;

dpt_error* run_checkpoint_convert(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant);

}  // namespace dopant::workloads
