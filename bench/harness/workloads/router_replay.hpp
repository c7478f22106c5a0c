// The router-replay workload: synthetic multi-turn MoE sessions through the `router` slot's
// replay plugin, inference side and trainer side, with the routing mismatch it removes.
#pragma once

#include <dopant/runtime.h>

namespace dopant::workloads {

extern const dpt_workload_decl router_replay_decl;

dpt_error* run_router_replay(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant);

}  // namespace dopant::workloads
