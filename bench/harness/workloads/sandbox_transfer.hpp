// The sandbox-transfer workload: latency of put+get round trips and of exec in one box of
// the `sandbox` slot's plugin, next to a plain memcpy of 1 MiB.
#pragma once

#include <dopant/runtime.h>

namespace dopant::workloads {

extern const dpt_workload_decl sandbox_transfer_decl;

dpt_error* run_sandbox_transfer(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant);

}  // namespace dopant::workloads
