// The in-process backend: select the variant's device, clear metrics and memory peaks, run
// the workload once, collect what it reported, and its error when it failed.
#include "in_process_backend.hpp"

#include <stdexcept>

namespace dopant::ab {

InProcessBackend::InProcessBackend(const LoadedConfig& loaded)
    : loaded_(loaded), workload_(workloads::find(loaded.workload().c_str())) {
  if (workload_ == nullptr) throw std::runtime_error("no built-in workload `" + loaded.workload() + "`");
}

RunOutput InProcessBackend::run(const std::string& variant) {
  dpt_runtime* runtime = loaded_.runtime();
  const uint32_t index = loaded_.variant_index(variant);
  dpt_device_options device{};
  device.struct_size = sizeof device;
  dpt_run_config_device(loaded_.config(), index, &device);
  throw_if_error(dpt_runtime_set_device(runtime, &device), "[device]");
  dpt_runtime_metrics_clear(runtime);
  dpt_runtime_reset_memory_peaks(runtime);
  dpt_error* error = workload_->run(runtime, loaded_.config(), index);

  RunOutput output;
  output.workload = loaded_.workload();
  if (error != nullptr) {
    output.failure = RunFailure{dpt_code_name(dpt_error_get_code(error)),
                                "workload `" + loaded_.workload() + "`: " + dpt_error_get_message(error)};
    dpt_error_destroy(error);
  }
  const uint32_t count = dpt_runtime_metric_count(runtime);
  for (uint32_t i = 0; i < count; ++i) {
    dpt_metric metric{};
    metric.struct_size = sizeof metric;
    dpt_runtime_metric_get(runtime, i, &metric);
    output.metrics.push_back(MetricValue{MetricInfo{metric.name, metric.unit, metric.better == DPT_BETTER_HIGHER},
                                         metric.value});
  }
  return output;
}

}  // namespace dopant::ab
