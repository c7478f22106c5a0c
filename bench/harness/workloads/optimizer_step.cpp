// The optimizer-step workload: `params` parameters split into `tensors` uneven tensors of
// `dtype`, with gradients of the same shape, all in device memory from host->alloc (so the
// device accounting and memory_limit see them). Parameters and each step's gradients come
// from synthetic.hpp, keyed by (seed, stream, global index). The `optimizer` slot's plugin
// gets one param group whose hyper-parameters are NaN (its own configuration applies) and
// runs `steps` steps. Metrics: step_time (median over steps), peak_device_bytes and
// params_per_second; after an out-of-memory failure only peak_device_bytes, as the bytes
// the run asked for at its peak. With `output` set, the final parameters are written as
// little-endian fp32 in tensor order, written as every output file is (output_files.hpp).
#include "optimizer_step.hpp"


#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "synthetic.hpp"

#include <dopant/sdk/float16.hpp>
#include <dopant/support/output_files.hpp>

namespace dopant::workloads {
namespace {

// ------------------------------------------------------------------ declaration

const char* const kDtypeChoices[] = {"fp32", "bf16", "fp16"};

const dpt_param_decl kParamsDecl = {DPT_PARAM_DECL_SIZE_1_0, "params", DPT_PARAM_SIZE, "1M", "1",
                                    nullptr, nullptr, 0, "", "total parameter count"};
const dpt_param_decl kTensorsDecl = {DPT_PARAM_DECL_SIZE_1_0, "tensors", DPT_PARAM_INT, "4", "1",
                                     "4096", nullptr, 0, "",
                                     "number of tensors the parameters are split into (uneven)"};
const dpt_param_decl kDtypeDecl = {DPT_PARAM_DECL_SIZE_1_0, "dtype", DPT_PARAM_ENUM, "fp32",
                                   nullptr, nullptr, kDtypeChoices, 3, nullptr,
                                   "element type of parameters and gradients"};
const dpt_param_decl kStepsDecl = {DPT_PARAM_DECL_SIZE_1_0, "steps", DPT_PARAM_INT, "3", "1",
                                   nullptr, nullptr, 0, "", "optimizer steps per repetition"};
const dpt_param_decl kSeedDecl = {DPT_PARAM_DECL_SIZE_1_0, "seed", DPT_PARAM_INT, "0", "0",
                                  nullptr, nullptr, 0, "", "seed of the synthetic data"};
const dpt_param_decl kOutputDecl = {
    DPT_PARAM_DECL_SIZE_1_0, "output", DPT_PARAM_STRING, "", nullptr, nullptr, nullptr, 0, nullptr,
    "file that receives the final parameters as little-endian fp32; empty: none"};

const dpt_param_decl* const kParamDecls[] = {&kParamsDecl, &kTensorsDecl, &kDtypeDecl,
                                             &kStepsDecl,  &kSeedDecl,    &kOutputDecl};
const char* const kSlots[] = {"optimizer"};

// ------------------------------------------------------------------ plumbing

// Carries an error out of the run; the body converts it back at the end.
struct Failure {
  dpt_error* error;
};

void check(dpt_error* error) {
  if (error != nullptr) throw Failure{error};
}

[[noreturn]] void fail(const dpt_host* host, dpt_code code, const std::string& message) {
  throw Failure{host->error(host, code, message.c_str())};
}

enum class Dtype { Fp32, Bf16, Fp16 };

struct Settings {
  uint64_t params = 0;
  uint32_t tensors = 0;
  Dtype dtype = Dtype::Fp32;
  uint32_t steps = 0;
  uint64_t seed = 0;
  std::string output;
};

// `run_file` is the run's own config, which `output` must never name.
Settings read_settings(const dpt_host* host, const dpt_config* config, const std::string& run_file) {
  Settings settings;
  int64_t tensors = 0, steps = 0, seed = 0;
  const char* dtype = nullptr;
  const char* output = nullptr;
  check(host->config_size(host, config, "params", &settings.params));
  check(host->config_int(host, config, "tensors", &tensors));
  check(host->config_string(host, config, "dtype", &dtype));
  check(host->config_int(host, config, "steps", &steps));
  check(host->config_int(host, config, "seed", &seed));
  check(host->config_string(host, config, "output", &output));
  settings.tensors = static_cast<uint32_t>(tensors);
  settings.steps = static_cast<uint32_t>(steps);
  settings.seed = static_cast<uint64_t>(seed);
  settings.output = output;
  if (!settings.output.empty()) {  // before any step: a bad path costs nothing
    try {
      check_outputs({{"output", settings.output, ""}}, {run_file});
    } catch (const OutputError& error) {
      fail(host, DPT_INVALID_ARGUMENT, error.what());
    }
  }
  const std::string dtype_name = dtype;
  settings.dtype = dtype_name == "bf16" ? Dtype::Bf16 : dtype_name == "fp16" ? Dtype::Fp16
                                                                            : Dtype::Fp32;
  if (settings.params < settings.tensors)
    fail(host, DPT_INVALID_ARGUMENT,
         "params (" + std::to_string(settings.params) + ") must be at least tensors (" +
             std::to_string(settings.tensors) + ")");
  // Every buffer of the run is at most `params` elements of at most 4 bytes, and there are
  // four (parameters, gradients, the staging copy, the fp32 read-back): their total must be
  // a byte count an allocation and a DLTensor extent (int64) can name, or every size
  // computed from it below would wrap.
  uint64_t total_bytes = 0;
  if (__builtin_mul_overflow(settings.params, uint64_t{4 * 4}, &total_bytes) ||
      total_bytes > static_cast<uint64_t>(INT64_MAX)) {
    fail(host, DPT_INVALID_ARGUMENT,
         "parameter `params` = " + std::to_string(settings.params) +
             " is out of range: its buffers would need 2^63 bytes or more");
  }
  return settings;
}

uint64_t element_bytes(Dtype dtype) { return dtype == Dtype::Fp32 ? 4 : 2; }

DLDataType dl_dtype(Dtype dtype) {
  const uint8_t code = dtype == Dtype::Bf16 ? static_cast<uint8_t>(kDLBfloat)
                                            : static_cast<uint8_t>(kDLFloat);
  return DLDataType{code, static_cast<uint8_t>(8 * element_bytes(dtype)), 1};
}

// One block of device memory from the host, freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(const dpt_host* host, uint64_t bytes) : host_(host) {
    check(host->alloc(host, DPT_MEMORY_DEVICE, bytes, 0, &data_));
  }
  ~DeviceBuffer() { host_->free(host_, DPT_MEMORY_DEVICE, data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }

 private:
  const dpt_host* host_;
  void* data_ = nullptr;
};

// Writes synthetic values of one stream into host memory, elements [offset, offset + n)
// of the global parameter order, in `dtype`.
struct FillJob {
  uint64_t seed;
  uint64_t stream;
  uint64_t offset;
  Dtype dtype;
  void* out;
};

dpt_error* fill_range(void* context, uint64_t begin, uint64_t end) {
  const FillJob& job = *static_cast<const FillJob*>(context);
  for (uint64_t i = begin; i < end; ++i) {
    const float value = synthetic_uniform(job.seed, job.stream, job.offset + i);
    switch (job.dtype) {
      case Dtype::Fp32: static_cast<float*>(job.out)[i] = value; break;
      case Dtype::Bf16: static_cast<uint16_t*>(job.out)[i] = sdk::float_to_bf16(value); break;
      case Dtype::Fp16: static_cast<uint16_t*>(job.out)[i] = sdk::float_to_half(value); break;
    }
  }
  return nullptr;
}

constexpr uint64_t kFillGrain = 1 << 16;

// The parameters and gradients of the run, with the DLPack views handed to the optimizer.
class Tensors {
 public:
  Tensors(const dpt_host* host, const Settings& settings)
      : host_(host), settings_(settings), sizes_(split_sizes(settings.params, settings.tensors)) {
    int32_t device_index = 0;
    const bool gpu = host->device_is_gpu(host, &device_index) != 0;
    const DLDevice device{gpu ? kDLCUDA : kDLCPU, gpu ? device_index : 0};
    const uint64_t bytes_per_element = element_bytes(settings.dtype);
    for (uint32_t k = 0; k < settings.tensors; ++k) {
      names_.push_back("layers." + std::to_string(k) + ".weight");
      param_memory_.push_back(std::make_unique<DeviceBuffer>(host, sizes_[k] * bytes_per_element));
      grad_memory_.push_back(std::make_unique<DeviceBuffer>(host, sizes_[k] * bytes_per_element));
      shapes_.push_back(static_cast<int64_t>(sizes_[k]));
    }
    // Views are made once every vector is complete, so the pointers into them stay valid.
    for (uint32_t k = 0; k < settings.tensors; ++k) {
      name_pointers_.push_back(names_[k].c_str());
      params_.push_back(DLTensor{param_memory_[k]->data(), device, 1, dl_dtype(settings.dtype),
                                 &shapes_[k], &unit_stride_, 0});
      grads_.push_back(DLTensor{grad_memory_[k]->data(), device, 1, dl_dtype(settings.dtype),
                                &shapes_[k], &unit_stride_, 0});
    }
    staging_.resize(*std::max_element(sizes_.begin(), sizes_.end()) * bytes_per_element);
  }

  void fill_params() { fill(parameter_stream(), params_); }
  void fill_grads(uint32_t step) { fill(gradient_stream(step), grads_); }

  dpt_param_group group() const {
    const double use_config = std::numeric_limits<double>::quiet_NaN();
    return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "all",      use_config,
                           use_config,               use_config, use_config, use_config,
                           settings_.tensors,         name_pointers_.data(), params_.data(),
                           grads_.data()};
  }

  // The parameters as fp32, in tensor order.
  std::vector<float> read_params() {
    std::vector<float> values;
    values.reserve(settings_.params);
    for (uint32_t k = 0; k < settings_.tensors; ++k) {
      check(host_->copy(host_, staging_.data(), DPT_MEMORY_HOST, params_[k].data,
                        DPT_MEMORY_DEVICE, sizes_[k] * element_bytes(settings_.dtype), nullptr));
      for (uint64_t i = 0; i < sizes_[k]; ++i) values.push_back(staged_value(i));
    }
    return values;
  }

 private:
  void fill(uint64_t stream, const std::vector<DLTensor>& targets) {
    uint64_t offset = 0;
    for (uint32_t k = 0; k < settings_.tensors; ++k) {
      FillJob job{settings_.seed, stream, offset, settings_.dtype, staging_.data()};
      check(host_->parallel_for(host_, 0, sizes_[k], kFillGrain, fill_range, &job));
      check(host_->copy(host_, targets[k].data, DPT_MEMORY_DEVICE, staging_.data(),
                        DPT_MEMORY_HOST, sizes_[k] * element_bytes(settings_.dtype), nullptr));
      offset += sizes_[k];
    }
  }

  float staged_value(uint64_t i) const {
    if (settings_.dtype == Dtype::Fp32) {
      float value = 0;
      std::memcpy(&value, staging_.data() + 4 * i, 4);
      return value;
    }
    uint16_t bits = 0;
    std::memcpy(&bits, staging_.data() + 2 * i, 2);
    return settings_.dtype == Dtype::Bf16 ? sdk::bf16_to_float(bits) : sdk::half_to_float(bits);
  }

  const dpt_host* host_;
  Settings settings_;
  std::vector<uint64_t> sizes_;
  std::vector<std::string> names_;
  std::vector<const char*> name_pointers_;
  std::vector<std::unique_ptr<DeviceBuffer>> param_memory_;
  std::vector<std::unique_ptr<DeviceBuffer>> grad_memory_;
  std::vector<int64_t> shapes_;  // [tensors]: each tensor is 1-D
  int64_t unit_stride_ = 1;
  std::vector<DLTensor> params_;
  std::vector<DLTensor> grads_;
  std::vector<unsigned char> staging_;  // host copy of the largest tensor
};

// ------------------------------------------------------------------ the optimizer

struct InstanceDeleter {
  void operator()(dpt_plugin_instance* instance) const { dpt_plugin_instance_destroy(instance); }
};
using Instance = std::unique_ptr<dpt_plugin_instance, InstanceDeleter>;

Instance create_optimizer(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const char* plugin = dpt_run_config_slot_plugin(config, variant, "optimizer");
  if (plugin == nullptr) fail(host, DPT_INVALID_ARGUMENT, "needs an [optimizer] plugin");
  dpt_plugin_instance* raw = nullptr;
  check(dpt_plugin_instance_create(runtime, plugin,
                                   dpt_run_config_slot_params(config, variant, "optimizer"), &raw));
  Instance instance(raw);
  const dpt_plugin_info* info = dpt_plugin_instance_info(raw);
  if (std::strcmp(info->descriptor->kind, DPT_KIND_OPTIMIZER) != 0)
    fail(host, DPT_INVALID_ARGUMENT,
         std::string("plugin `") + plugin + "` is a " + info->descriptor->kind +
             ", not an optimizer");
  return instance;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// Little-endian fp32 to `path`, the way every output file is written (output_files.hpp).
void write_params(const dpt_host* host, const std::string& path, const std::vector<float>& values,
                  const std::string& run_file) {
  std::string bytes(4 * values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, &values[i], 4);
    for (size_t b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xffu);
  }
  try {
    write_outputs({{"output", path, std::move(bytes)}}, {run_file});
  } catch (const OutputError& error) {
    fail(host, DPT_UNAVAILABLE, error.what());
  }
}

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const std::string run_file = dpt_run_config_source(config);
  const Settings settings = read_settings(host, dpt_run_config_workload_params(config, variant), run_file);
  Tensors tensors(host, settings);  // declared before the optimizer, destroyed after it
  tensors.fill_params();

  const Instance optimizer = create_optimizer(runtime, config, variant);
  const auto* table =
      static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(optimizer.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(optimizer.get());
  const dpt_param_group group = tensors.group();
  check(table->add_param_group(handle, &group));

  const dpt_step_args args = DPT_STEP_ARGS_INIT;
  std::vector<double> step_seconds;
  for (uint32_t step = 0; step < settings.steps; ++step) {
    if (host->is_cancelled(host)) fail(host, DPT_CANCELLED, "cancelled");
    tensors.fill_grads(step);
    const auto start = std::chrono::steady_clock::now();
    check(table->step(handle, &args, nullptr));
    check(host->stream_synchronize(host, nullptr));
    step_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

  dpt_memory_stats device{};
  device.struct_size = DPT_MEMORY_STATS_SIZE_1_0;
  check(host->memory_stats(host, DPT_MEMORY_DEVICE, &device));
  const double step_time = median(step_seconds);
  host->metric(host, "step_time", step_time, "s", DPT_BETTER_LOWER);
  host->metric(host, "peak_device_bytes", static_cast<double>(device.peak_bytes), "B",
               DPT_BETTER_LOWER);
  host->metric(host, "params_per_second", static_cast<double>(settings.params) / step_time,
               "params/s", DPT_BETTER_HIGHER);

  if (!settings.output.empty()) write_params(host, settings.output, tensors.read_params(), run_file);
}

// After an out-of-memory failure: the device bytes the run asked for at its peak (the
// refused request included), as peak_device_bytes, so an A/B can set what a configuration
// that does not fit needed against the peak of one that does.
void report_demand(const dpt_host* host) {
  dpt_memory_stats device{};
  device.struct_size = DPT_MEMORY_STATS_SIZE_1_2;
  if (dpt_error* error = host->memory_stats(host, DPT_MEMORY_DEVICE, &device)) {
    host->error_free(host, error);
    return;
  }
  host->metric(host, "peak_device_bytes", static_cast<double>(device.peak_demand_bytes), "B", DPT_BETTER_LOWER);
}

}  // namespace

const dpt_workload_decl optimizer_step_decl = {
    DPT_WORKLOAD_DECL_SIZE_1_0,
    "optimizer-step",
    "steps the optimizer slot over synthetic parameters and gradients",
    kParamDecls,
    static_cast<uint32_t>(std::size(kParamDecls)),
    kSlots,
    static_cast<uint32_t>(std::size(kSlots))};

dpt_error* run_optimizer_step(dpt_runtime* runtime, const dpt_run_config* config,
                              uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  try {
    run(runtime, config, variant);
    return nullptr;
  } catch (const Failure& failure) {
    if (host->error_code(host, failure.error) == DPT_OUT_OF_MEMORY) report_demand(host);
    return failure.error;
  } catch (const std::bad_alloc&) {
    return host->error(host, DPT_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return host->error(host, DPT_INTERNAL, e.what());
  }
}

}  // namespace dopant::workloads
