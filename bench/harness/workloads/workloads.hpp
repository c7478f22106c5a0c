// The built-in workloads: each drives plugin slots the way a training or rollout loop
// would, through the C API only, and reports metrics through the host metric service.
#pragma once

#include <dopant/runtime.h>

#include <string>
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

// Opens a runtime that searches `plugin_paths` (in order, before the default folders), with
// every built-in workload declared: the one way the CLI, the A/B harness and the suite get a
// runtime. Load problems are warnings: at `log_level` WARN or below each is printed on stderr
// as "dopant: skipped FILE: reason". Throws std::runtime_error with the runtime's message.
// The caller destroys the runtime.
dpt_runtime* open_runtime(const std::vector<std::string>& plugin_paths, dpt_log_level log_level,
                          uint32_t threads = 0);

// The workload of that name, or nullptr.
const Workload* find(const char* name);

}  // namespace dopant::workloads
