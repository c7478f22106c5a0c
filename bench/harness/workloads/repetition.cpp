// run_repetition (see repetition.hpp).
#include "repetition.hpp"

namespace dopant::workloads {

Repetition run_repetition(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant,
                          const Workload& workload) {
  dpt_runtime_metrics_clear(runtime);
  dpt_runtime_reset_memory_peaks(runtime);
  Repetition repetition;
  if (dpt_error* error = workload.run(runtime, config, variant)) {
    repetition.failure = RepetitionFailure{dpt_code_name(dpt_error_get_code(error)),
                                           "workload `" + std::string(workload.decl->name) + "`: " +
                                               dpt_error_get_message(error)};
    dpt_error_destroy(error);
  }
  const uint32_t count = dpt_runtime_metric_count(runtime);
  for (uint32_t i = 0; i < count; ++i) {
    dpt_metric metric{};
    metric.struct_size = sizeof metric;
    dpt_runtime_metric_get(runtime, i, &metric);
    repetition.metrics.push_back({metric.name, metric.value, metric.unit, metric.better});
  }
  return repetition;
}

}  // namespace dopant::workloads
