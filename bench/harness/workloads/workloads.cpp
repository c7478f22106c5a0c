// The registry of built-in workloads: the list the CLI and the A/B harness run from.
#include "workloads.hpp"

#include <cstring>

#include "optimizer_step.hpp"

namespace dopant::workloads {

const std::vector<Workload>& builtin() {
  static const std::vector<Workload> workloads = {
      {&optimizer_step_decl, &run_optimizer_step},
  };
  return workloads;
}

dpt_error* declare_builtin(dpt_runtime* runtime) {
  for (const Workload& workload : builtin()) {
    if (dpt_error* error = dpt_runtime_declare_workload(runtime, workload.decl)) return error;
  }
  return nullptr;
}

const Workload* find(const char* name) {
  if (name == nullptr) return nullptr;
  for (const Workload& workload : builtin()) {
    if (std::strcmp(workload.decl->name, name) == 0) return &workload;
  }
  return nullptr;
}

}  // namespace dopant::workloads
