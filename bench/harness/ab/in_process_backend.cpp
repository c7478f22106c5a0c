// The in-process backend: select the variant's device, clear metrics and memory peaks, run
// the workload once, collect what it reported, and its error when it failed.
#include "in_process_backend.hpp"

#include "repetition.hpp"

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
  const workloads::Repetition repetition = workloads::run_repetition(runtime, loaded_.config(), index, *workload_);

  RunOutput output;
  output.workload = loaded_.workload();
  if (repetition.failure) output.failure = RunFailure{repetition.failure->code, repetition.failure->message};
  for (const workloads::MeasuredMetric& metric : repetition.metrics) {
    output.metrics.push_back(
        MetricValue{MetricInfo{metric.name, metric.unit, metric.better == DPT_BETTER_HIGHER}, metric.value});
  }
  return output;
}

}  // namespace dopant::ab
