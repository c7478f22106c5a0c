// dopant-bench plumbing: runtime holder, instance creation, error handling.
#include "bench_runtime.hpp"

namespace dopant::bench {
namespace {
dpt_runtime* the_runtime = nullptr;
}

dpt_runtime* runtime() { return the_runtime; }
void set_runtime(dpt_runtime* runtime) { the_runtime = runtime; }

bool skip_on_error(benchmark::State& state, dpt_error* error) {
  if (error == nullptr) return false;
  state.SkipWithError(dpt_error_get_message(error));
  dpt_error_destroy(error);
  return true;
}

Instance create_instance(benchmark::State& state, const std::string& plugin) {
  dpt_plugin_instance* instance = nullptr;
  if (skip_on_error(state, dpt_plugin_instance_create(the_runtime, plugin.c_str(), nullptr, &instance))) return nullptr;
  return Instance(instance);
}

DeviceBuffer::~DeviceBuffer() {
  const dpt_host* host = dpt_runtime_host(the_runtime);
  host->free(host, DPT_MEMORY_DEVICE, data);
}

TensorView::TensorView(void* data, DLDataType dtype, std::vector<int64_t> dims) : shape(std::move(dims)) {
  strides.assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  tensor.data = data;
  tensor.device = {kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(shape.size());
  tensor.dtype = dtype;
  tensor.shape = shape.data();
  tensor.strides = strides.data();
  tensor.byte_offset = 0;
}

}  // namespace dopant::bench
