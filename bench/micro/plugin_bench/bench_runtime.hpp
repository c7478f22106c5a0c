// Shared plumbing of dopant-bench: the process-wide runtime, instance ownership, and the
// registration hook each kind provides for its standard inputs.
#pragma once

#include <dopant/checkpoint.h>
#include <dopant/parallel.h>
#include <dopant/router.h>
#include <dopant/sandbox.h>
#include <dopant/runtime.h>

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace dopant::bench {

// The runtime every benchmark uses; created by main before registration.
dpt_runtime* runtime();
void set_runtime(dpt_runtime* runtime);

// An instance with its defaults, destroyed with the holder.
struct InstanceDeleter {
  void operator()(dpt_plugin_instance* instance) const { dpt_plugin_instance_destroy(instance); }
};
using Instance = std::unique_ptr<dpt_plugin_instance, InstanceDeleter>;

// Creates an instance of `plugin` with default parameters; on error marks the benchmark
// skipped with the plugin's message and returns null.
Instance create_instance(benchmark::State& state, const std::string& plugin);

// Turns an error into SkipWithError (freeing it); returns true when there was one.
bool skip_on_error(benchmark::State& state, dpt_error* error);

// Device memory from the runtime's host, freed with the holder.
struct DeviceBuffer {
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* data = nullptr;
};

// Registration of one plugin's benchmarks, per kind.
void register_optimizer(const std::string& plugin);
void register_router(const std::string& plugin);
void register_parallel(const std::string& plugin);
void register_sandbox(const std::string& plugin);
void register_checkpoint(const std::string& plugin);

}  // namespace dopant::bench

namespace dopant::bench {

// A contiguous DLTensor view over `data` that owns its shape and strides.
struct TensorView {
  TensorView(void* data, DLDataType dtype, std::vector<int64_t> dims);
  TensorView(const TensorView&) = delete;
  TensorView& operator=(const TensorView&) = delete;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor tensor{};
};

constexpr DLDataType kFloat32{kDLFloat, 32, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

}  // namespace dopant::bench
