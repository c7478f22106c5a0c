// The registry of built-in workloads: the list the CLI and the A/B harness run from.
#include "workloads.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "checkpoint_convert.hpp"
#include "moe_dispatch.hpp"
#include "optimizer_step.hpp"
#include "router_replay.hpp"
#include "sandbox_transfer.hpp"

namespace dopant::workloads {

const std::vector<Workload>& builtin() {
  static const std::vector<Workload> workloads = {
      {&optimizer_step_decl, &run_optimizer_step},
      {&sandbox_transfer_decl, &run_sandbox_transfer},
      {&moe_dispatch_decl, &run_moe_dispatch},
      {&router_replay_decl, &run_router_replay},
      {&checkpoint_convert_decl, &run_checkpoint_convert},
  };
  return workloads;
}

dpt_error* declare_builtin(dpt_runtime* runtime) {
  for (const Workload& workload : builtin()) {
    if (dpt_error* error = dpt_runtime_declare_workload(runtime, workload.decl)) return error;
  }
  return nullptr;
}

dpt_runtime* open_runtime(const std::vector<std::string>& plugin_paths, dpt_log_level log_level,
                          uint32_t threads) {
  std::string joined;  // the runtime takes one PATH-style list
  for (const std::string& path : plugin_paths) joined += (joined.empty() ? "" : ":") + path;
  dpt_runtime_options options{};
  options.struct_size = sizeof options;
  options.plugin_path = joined.empty() ? nullptr : joined.c_str();
  options.log_level = log_level;
  options.threads = threads;
  dpt_runtime* runtime = nullptr;
  dpt_error* error = dpt_runtime_create(&options, &runtime);
  if (error == nullptr) {
    error = declare_builtin(runtime);
    if (error != nullptr) dpt_runtime_destroy(runtime);
  }
  if (error != nullptr) {
    const std::string message = dpt_error_get_message(error);
    dpt_error_destroy(error);
    throw std::runtime_error(message);
  }
  if (log_level <= DPT_LOG_WARN) {
    for (uint32_t i = 0; i < dpt_runtime_load_problem_count(runtime); ++i) {
      std::fprintf(stderr, "dopant: skipped %s\n", dpt_runtime_load_problem(runtime, i));
    }
  }
  return runtime;
}

const Workload* find(const char* name) {
  if (name == nullptr) return nullptr;
  for (const Workload& workload : builtin()) {
    if (std::strcmp(workload.decl->name, name) == 0) return &workload;
  }
  return nullptr;
}

}  // namespace dopant::workloads
