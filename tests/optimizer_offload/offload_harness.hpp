// Test harness for the adamw / adamw-chunked-offload comparisons: a runtime (CPU, or CUDA
// when asked and present) with both plugins loaded, optionally under a device memory limit;
// optimizer instances configured from `[optimizer]` TOML lines; a model of named tensors
// whose parameters and gradients live in the runtime's accounted device memory, written and
// read through host->copy; and `train`, a few steps of one optimizer on a fresh model.
#pragma once

#include <dlpack/dlpack.h>
#include <dopant/optimizer.h>
#include <dopant/runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dopant::offload_testing {

inline constexpr DLDataType kFp32{kDLFloat, 32, 1};
inline constexpr DLDataType kBf16{kDLBfloat, 16, 1};
inline constexpr DLDataType kFp16{kDLFloat, 16, 1};

// Code and message of an error from the runtime or a plugin, which it frees.
struct Outcome {
  dpt_code code = DPT_OK;
  std::string message;
};
Outcome take(dpt_error* error);
// Throws std::runtime_error naming `what` unless `outcome` is DPT_OK.
void check_ok(const Outcome& outcome, const char* what);

// "fp32", "bf16" or "fp16": names of parameterized tests.
std::string dtype_name(DLDataType dtype);

// "tensor/state" -> the exported bytes.
using ExportedState = std::map<std::string, std::vector<unsigned char>>;

class Optimizer {
 public:
  Optimizer(dpt_runtime* runtime, const std::string& optimizer_table);
  ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  Outcome add_group(const dpt_param_group& group);
  Outcome step(double lr_scale, double grad_scale, dpt_stream* stream = nullptr);
  ExportedState export_state();
  // Imports every entry of `state` ("step" as a 0-d fp32 tensor, the rest 1-d fp32).
  Outcome import_all(const ExportedState& state);
  dpt_optimizer_memory memory();

 private:
  const dpt_optimizer_v1& table() const;
  dpt_run_config* config_ = nullptr;
  dpt_plugin_instance* instance_ = nullptr;
};

// Named tensors of one dtype in device memory, in groups; values are deterministic.
class DeviceModel {
 public:
  DeviceModel(const dpt_host* host, DLDataType dtype, std::vector<std::vector<uint64_t>> groups);
  ~DeviceModel();
  DeviceModel(const DeviceModel&) = delete;
  DeviceModel& operator=(const DeviceModel&) = delete;

  // The param group `index`: group 0 takes the plugin's configured hyper-parameters (NaN),
  // the others explicit ones.
  dpt_param_group group(size_t index) const;
  size_t group_count() const { return groups_.size(); }
  // Writes the gradients of step `step`: on `stream` without waiting for the copies, or,
  // without a stream, complete when it returns.
  void set_gradients(uint64_t step, dpt_stream* stream = nullptr);
  // Every parameter's bytes, in tensor order.
  std::vector<unsigned char> parameters() const;
  void restore_parameters(const std::vector<unsigned char>& bytes);
  uint64_t parameter_bytes() const;  // of parameters; gradients take as much

 private:
  struct Tensor {
    std::string name;
    int64_t shape;
    int64_t stride = 1;
    void* param = nullptr;
    void* grad = nullptr;
    DLTensor param_view;
    DLTensor grad_view;
  };
  void fill(void* device, uint64_t values_of, uint64_t index, const Tensor& t,
            dpt_stream* stream = nullptr);
  void copy(void* dst, dpt_memory_kind dst_kind, const void* src, dpt_memory_kind src_kind,
            uint64_t bytes) const;

  const dpt_host* host_;
  DLDataType dtype_;
  DLDevice device_;
  std::vector<Tensor> tensors_;
  std::vector<std::vector<size_t>> groups_;  // tensor indices per group
  std::vector<std::vector<const char*>> names_;
  std::vector<std::vector<DLTensor>> params_;
  std::vector<std::vector<DLTensor>> grads_;
};

// A runtime on `device` ("cpu" or "cuda", number `index`) with the adamw and
// adamw-chunked-offload plugins and a workload named "offload-test" with one `optimizer` slot.
class Harness {
 public:
  explicit Harness(uint64_t device_memory_limit = 0, const char* device = "cpu",
                   int32_t index = 0);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  dpt_runtime* runtime() const { return runtime_; }
  const dpt_host* host() const { return dpt_runtime_host(runtime_); }
  dpt_memory_stats device_memory() const;

 private:
  dpt_runtime* runtime_ = nullptr;
};

// Whether a runtime can use a CUDA device here.
bool cuda_device_present();

struct TrainResult {
  std::vector<unsigned char> parameters;
  ExportedState state;
};

// Adds every group of `model` to `optimizer`, in order.
void add_groups(Optimizer& optimizer, const DeviceModel& model);

// Steps `first` … `last` of `optimizer`: gradients of each step, lr_scale 1 - step/10 and
// grad_scale 2; with a stream, gradients and steps are queued on it and nothing waits.
void run_steps(Optimizer& optimizer, DeviceModel& model, uint64_t first, uint64_t last,
               dpt_stream* stream = nullptr);

// `steps` steps of the optimizer of `optimizer_table` on a fresh model of `groups` on
// `device`: the final parameters and the exported state.
TrainResult train(const char* device, DLDataType dtype,
                  const std::vector<std::vector<uint64_t>>& groups,
                  const std::string& optimizer_table, uint64_t steps);

}  // namespace dopant::offload_testing
