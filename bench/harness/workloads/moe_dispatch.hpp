// The moe-dispatch workload: MoE token dispatch and combine through the `parallel` slot's
// plugin, over every rank of the run (`mpirun -np N dopant run FILE`).
#pragma once

#include <dopant/runtime.h>

namespace dopant::workloads {

extern const dpt_workload_decl moe_dispatch_decl;

dpt_error* run_moe_dispatch(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant);

}  // namespace dopant::workloads
