// The optimizer-step workload: runs a few steps of the `optimizer` slot's plugin over
// synthetic parameters and gradients and reports step time, device peak and throughput.
#pragma once

#include <dopant/runtime.h>

namespace dopant::workloads {

extern const dpt_workload_decl optimizer_step_decl;

dpt_error* run_optimizer_step(dpt_runtime* runtime, const dpt_run_config* config,
                              uint32_t variant);

}  // namespace dopant::workloads
