// Harness, Optimizer and DeviceModel (see offload_harness.hpp).
#include "offload_harness.hpp"

#include <stdexcept>

#include <cmath>
#include <cstring>
#include <limits>

#include <dopant/sdk/float16.hpp>

namespace dopant::offload_testing {
namespace {

// A value in [-1, 1) from (stream, tensor, element): splitmix64 of the three.
float synthetic(uint64_t stream, uint64_t tensor, uint64_t element) {
  uint64_t x = stream * 0x9E3779B97F4A7C15ull ^ tensor * 0xC2B2AE3D27D4EB4Full ^ element;
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<float>(x >> 40) * 0x1p-23f - 1.0f;
}

void check_ok(dpt_error* error, const char* what) { check_ok(take(error), what); }

}  // namespace

Outcome take(dpt_error* error) {
  if (error == nullptr) return {};
  Outcome outcome{dpt_error_get_code(error), dpt_error_get_message(error)};
  dpt_error_destroy(error);
  return outcome;
}

void check_ok(const Outcome& outcome, const char* what) {
  if (outcome.code != DPT_OK) throw std::runtime_error(std::string(what) + ": " + outcome.message);
}

std::string dtype_name(DLDataType dtype) {
  return dtype.bits == 32 ? "fp32" : dtype.code == kDLBfloat ? "bf16" : "fp16";
}

// ------------------------------------------------------------------ Harness

Harness::Harness(uint64_t device_memory_limit, const char* device, int32_t index) {
  const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, 1, DPT_LOG_WARN, 2};
  check_ok(dpt_runtime_create(&options, &runtime_), "dpt_runtime_create");
  check_ok(dpt_runtime_load_library(runtime_, DOPANT_ADAMW_PLUGIN), "load adamw");
  check_ok(dpt_runtime_load_library(runtime_, DOPANT_OFFLOAD_PLUGIN), "load offload");
  static const char* const kSlots[] = {"optimizer"};
  const dpt_workload_decl workload{DPT_WORKLOAD_DECL_SIZE_1_0, "offload-test",
                                   "optimizer instances for tests", nullptr, 0, kSlots, 1};
  check_ok(dpt_runtime_declare_workload(runtime_, &workload), "declare workload");
  const dpt_device_options chosen{DPT_DEVICE_OPTIONS_SIZE_1_0, device, index,
                                  device_memory_limit};
  check_ok(dpt_runtime_set_device(runtime_, &chosen), "set device");
}

Harness::~Harness() { dpt_runtime_destroy(runtime_); }

dpt_memory_stats Harness::device_memory() const {
  dpt_memory_stats stats{};
  stats.struct_size = DPT_MEMORY_STATS_SIZE_1_0;
  check_ok(host()->memory_stats(host(), DPT_MEMORY_DEVICE, &stats), "memory_stats");
  return stats;
}

// ------------------------------------------------------------------ Optimizer

Optimizer::Optimizer(dpt_runtime* runtime, const std::string& optimizer_table) {
  const std::string text =
      "[run]\nworkload = \"offload-test\"\n\n[optimizer]\n" + optimizer_table + "\n";
  check_ok(dpt_run_config_parse(runtime, text.c_str(), "test.toml", &config_), "config");
  check_ok(dpt_plugin_instance_create(runtime, dpt_run_config_slot_plugin(config_, 0, "optimizer"),
                                      dpt_run_config_slot_params(config_, 0, "optimizer"),
                                      &instance_),
           "instance");
}

Optimizer::~Optimizer() {
  dpt_plugin_instance_destroy(instance_);
  dpt_run_config_destroy(config_);
}

const dpt_optimizer_v1& Optimizer::table() const {
  return *static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance_));
}

Outcome Optimizer::add_group(const dpt_param_group& group) {
  return take(table().add_param_group(dpt_plugin_instance_handle(instance_), &group));
}

Outcome Optimizer::step(double lr_scale, double grad_scale, dpt_stream* stream) {
  const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, lr_scale, grad_scale, 0, nullptr};
  return take(table().step(dpt_plugin_instance_handle(instance_), &args, stream));
}

ExportedState Optimizer::export_state() {
  ExportedState state;
  const auto keep = [](void* context, const char* tensor, const char* name,
                       const DLTensor* value) -> dpt_error* {
    int64_t count = 1;
    for (int d = 0; d < value->ndim; ++d) count *= value->shape[d];
    const auto* bytes = static_cast<const unsigned char*>(value->data);
    (*static_cast<ExportedState*>(context))[std::string(tensor) + "/" + name] =
        std::vector<unsigned char>(bytes, bytes + count * sizeof(float));
    return nullptr;
  };
  check_ok(table().export_state(dpt_plugin_instance_handle(instance_), keep, &state), "export");
  return state;
}

Outcome Optimizer::import_all(const ExportedState& state) {
  for (const auto& [key, bytes] : state) {
    const size_t slash = key.rfind('/');
    const std::string tensor = key.substr(0, slash);
    const std::string name = key.substr(slash + 1);
    std::vector<unsigned char> copy = bytes;
    int64_t shape = static_cast<int64_t>(bytes.size() / sizeof(float));
    int64_t stride = 1;
    const DLTensor value{copy.data(), {kDLCPU, 0}, name == "step" ? 0 : 1, kFp32, &shape,
                         &stride, 0};
    Outcome outcome = take(table().import_state(dpt_plugin_instance_handle(instance_),
                                                tensor.c_str(), name.c_str(), &value));
    if (outcome.code != DPT_OK) return outcome;
  }
  return {};
}

dpt_optimizer_memory Optimizer::memory() {
  dpt_optimizer_memory out{};
  out.struct_size = DPT_OPTIMIZER_MEMORY_SIZE_1_0;
  check_ok(table().memory(dpt_plugin_instance_handle(instance_), &out), "memory");
  return out;
}

// ------------------------------------------------------------------ DeviceModel

DeviceModel::DeviceModel(const dpt_host* host, DLDataType dtype,
                         std::vector<std::vector<uint64_t>> groups)
    : host_(host), dtype_(dtype) {
  int32_t index = 0;
  device_ = host->device_is_gpu(host, &index) != 0 ? DLDevice{kDLCUDA, index} : DLDevice{kDLCPU, 0};
  size_t total = 0;
  for (const auto& sizes : groups) total += sizes.size();
  tensors_.reserve(total);
  for (size_t g = 0; g < groups.size(); ++g) {
    groups_.emplace_back();
    for (uint64_t count : groups[g]) {
      groups_.back().push_back(tensors_.size());
      Tensor& t = tensors_.emplace_back();
      t.name = std::to_string(g);  // "G.T": tensor T of group G
      t.name.append(".").append(std::to_string(groups_.back().size() - 1));
      t.shape = static_cast<int64_t>(count);
      const uint64_t bytes = count * dtype.bits / 8;
      check_ok(host_->alloc(host_, DPT_MEMORY_DEVICE, bytes, 0, &t.param), "alloc param");
      check_ok(host_->alloc(host_, DPT_MEMORY_DEVICE, bytes, 0, &t.grad), "alloc grad");
      t.param_view = DLTensor{t.param, device_, 1, dtype, &t.shape, &t.stride, 0};
      t.grad_view = DLTensor{t.grad, device_, 1, dtype, &t.shape, &t.stride, 0};
      fill(t.param, 0, tensors_.size() - 1, t);
    }
  }
  for (const auto& members : groups_) {
    names_.emplace_back();
    params_.emplace_back();
    grads_.emplace_back();
    for (size_t index : members) {
      names_.back().push_back(tensors_[index].name.c_str());
      params_.back().push_back(tensors_[index].param_view);
      grads_.back().push_back(tensors_[index].grad_view);
    }
  }
}

DeviceModel::~DeviceModel() {
  for (Tensor& t : tensors_) {
    host_->free(host_, DPT_MEMORY_DEVICE, t.param);
    host_->free(host_, DPT_MEMORY_DEVICE, t.grad);
  }
}

void DeviceModel::copy(void* dst, dpt_memory_kind dst_kind, const void* src,
                       dpt_memory_kind src_kind, uint64_t bytes) const {
  check_ok(host_->copy(host_, dst, dst_kind, src, src_kind, bytes, nullptr), "copy");
  check_ok(host_->stream_synchronize(host_, nullptr), "synchronize");
}

void DeviceModel::fill(void* device, uint64_t values_of, uint64_t index, const Tensor& t,
                       dpt_stream* stream) {
  const auto count = static_cast<uint64_t>(t.shape);
  std::vector<unsigned char> values(count * dtype_.bits / 8);
  for (uint64_t i = 0; i < count; ++i) {
    const float value = synthetic(values_of, index, i);
    if (dtype_.bits == 32) {
      std::memcpy(values.data() + 4 * i, &value, 4);
    } else {
      const uint16_t half = dtype_.code == kDLBfloat ? sdk::float_to_bf16(value)
                                                     : sdk::float_to_half(value);
      std::memcpy(values.data() + 2 * i, &half, 2);
    }
  }
  if (stream == nullptr) {
    copy(device, DPT_MEMORY_DEVICE, values.data(), DPT_MEMORY_HOST, values.size());
    return;
  }
  // From pageable memory a queued copy has read its source when it returns (CUDA stages it).
  check_ok(host_->copy(host_, device, DPT_MEMORY_DEVICE, values.data(), DPT_MEMORY_HOST,
                       values.size(), stream),
           "copy on a stream");
}

dpt_param_group DeviceModel::group(size_t index) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool configured = index == 0;
  return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0,
                         nullptr,
                         "group",
                         configured ? nan : 2e-2,
                         configured ? nan : 0.8,
                         configured ? nan : 0.99,
                         configured ? nan : 1e-6,
                         configured ? nan : 0.1,
                         static_cast<uint32_t>(names_[index].size()),
                         names_[index].data(),
                         params_[index].data(),
                         grads_[index].data()};
}

void DeviceModel::set_gradients(uint64_t step, dpt_stream* stream) {
  for (size_t i = 0; i < tensors_.size(); ++i) fill(tensors_[i].grad, step, i, tensors_[i], stream);
}

std::vector<unsigned char> DeviceModel::parameters() const {
  std::vector<unsigned char> bytes;
  for (const Tensor& t : tensors_) {
    const size_t offset = bytes.size();
    bytes.resize(offset + static_cast<size_t>(t.shape) * dtype_.bits / 8);
    copy(bytes.data() + offset, DPT_MEMORY_HOST, t.param, DPT_MEMORY_DEVICE,
         bytes.size() - offset);
  }
  return bytes;
}

void DeviceModel::restore_parameters(const std::vector<unsigned char>& bytes) {
  size_t offset = 0;
  for (Tensor& t : tensors_) {
    const size_t size = static_cast<size_t>(t.shape) * dtype_.bits / 8;
    copy(t.param, DPT_MEMORY_DEVICE, bytes.data() + offset, DPT_MEMORY_HOST, size);
    offset += size;
  }
}

uint64_t DeviceModel::parameter_bytes() const {
  uint64_t bytes = 0;
  for (const Tensor& t : tensors_) bytes += static_cast<uint64_t>(t.shape) * dtype_.bits / 8;
  return bytes;
}

// ------------------------------------------------------------------ training

bool cuda_device_present() {
  try {
    Harness harness(0, "cuda");
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

void add_groups(Optimizer& optimizer, const DeviceModel& model) {
  for (size_t g = 0; g < model.group_count(); ++g) {
    check_ok(optimizer.add_group(model.group(g)), "add_param_group");
  }
}

void run_steps(Optimizer& optimizer, DeviceModel& model, uint64_t first, uint64_t last,
               dpt_stream* stream) {
  for (uint64_t step = first; step <= last; ++step) {
    model.set_gradients(step, stream);
    check_ok(optimizer.step(1.0 - 0.1 * static_cast<double>(step), 2.0, stream), "step");
  }
}

TrainResult train(const char* device, DLDataType dtype,
                  const std::vector<std::vector<uint64_t>>& groups,
                  const std::string& optimizer_table, uint64_t steps) {
  Harness harness(0, device);
  DeviceModel model(harness.host(), dtype, groups);
  Optimizer optimizer(harness.runtime(), optimizer_table);
  add_groups(optimizer, model);
  run_steps(optimizer, model, 1, steps);
  return TrainResult{model.parameters(), optimizer.export_state()};
}

}  // namespace dopant::offload_testing
