// The built-in workloads: each drives plugin slots the way a training or rollout loop
// would, through the C API only, and reports metrics through the host metric service.
#pragma once

#include <dopant/runtime.h>

#include <vector>

namespace dopant::workloads {

struct Workload {
  // Name, parameters and needed slots, as declared to the runtime.
  const dpt_workload_decl* decl;
  // Runs one repetition of variant `variant` of `config`; the device is already selected and
  // metrics are cleared before the call. Metrics go through dpt_runtime_host(runtime)->metric.
  dpt_error* (*run)(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant);
};

// Every built-in workload.
const std::vector<Workload>& builtin();

// Declares every built-in workload to a runtime, so configs can name them.
dpt_error* declare_builtin(dpt_runtime* runtime);

// The workload of that name, or nullptr.
const Workload* find(const char* name);

}  // namespace dopant::workloads
