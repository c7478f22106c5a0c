// DeviceAdamW: tensor checks, state allocation, the CPU and GPU steps, and state export and
// import under PyTorch's names ("step", "exp_avg", "exp_avg_sq", plus "master").
#include "device_adamw.hpp"

#include <cmath>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "state_transfer.hpp"
#ifdef DOPANT_ADAMW_HAVE_CUDA
#include "dopant/adamw/cuda_step.hpp"
#endif

namespace dopant::adamw_plugin {
namespace {

constexpr uint64_t kElementsPerTask = uint64_t{1} << 16;

double configured_or(double group_value, double configured) {
  return std::isnan(group_value) ? configured : group_value;
}

adamw::ParamDtype dtype_of(const std::string& name, const DLTensor& t) {
  if (sdk::is_fp32(t)) return adamw::ParamDtype::f32;
  if (sdk::is_bf16(t)) return adamw::ParamDtype::bf16;
  if (sdk::is_fp16(t)) return adamw::ParamDtype::f16;
  sdk::fail(DPT_INVALID_ARGUMENT, "tensor `" + name + "`: dtype " + sdk::dtype_name(t.dtype) +
                                      " is not supported (adamw takes fp32, bf16 and fp16)");
}

void check_tensor(const std::string& name, const DLTensor& param, const DLTensor& grad,
                  bool on_gpu) {
  sdk::require(sdk::same_dtype(param.dtype, grad.dtype),
               "tensor `" + name + "`: gradient dtype " + sdk::dtype_name(grad.dtype) +
                   " differs from parameter dtype " + sdk::dtype_name(param.dtype));
  sdk::require(sdk::same_shape(param, grad), "tensor `" + name + "`: gradient shape " +
                                                 sdk::shape_string(grad) +
                                                 " differs from parameter shape " +
                                                 sdk::shape_string(param));
  dtype_of(name, param);
  for (const DLTensor* t : {&param, &grad}) {
    sdk::require(sdk::is_contiguous(*t), "tensor `" + name + "`: not contiguous");
    const bool device_ok = on_gpu ? t->device.device_type == kDLCUDA
                                  : t->device.device_type == kDLCPU ||
                                        t->device.device_type == kDLCUDAHost;
    sdk::require(device_ok, "tensor `" + name + "`: not in the run's device memory (" +
                                (on_gpu ? "CUDA" : "CPU") + ")");
  }
}

// Arguments of one parallel_for over the elements of a tensor.
struct RangeUpdate {
  const dpt_host* host;
  adamw::Variant variant;
  adamw::ParamDtype dtype;
  adamw::StepScalars scalars;
  adamw::TensorRefs refs;
};

dpt_error* update_range(void* context, uint64_t begin, uint64_t end) {
  const auto& u = *static_cast<const RangeUpdate*>(context);
  return sdk::guard(u.host,
                    [&] { adamw::step_range(u.variant, u.dtype, u.scalars, u.refs, begin, end); });
}

adamw::Variant choose_variant(const std::string& kernel) {
  if (kernel == "auto") return adamw::active_variant();
  const std::optional<adamw::Variant> variant = adamw::parse_variant(kernel);
  sdk::require(variant.has_value(), "kernel `" + kernel + "` is not an AdamW kernel variant");
  if (!adamw::variant_supported(*variant)) {
    sdk::fail(DPT_UNIMPLEMENTED, "kernel `" + kernel + "` is not supported by this CPU");
  }
  return *variant;
}

}  // namespace

adamw::TensorRefs DeviceAdamW::Tensor::refs() const {
  return adamw::TensorRefs{param, grad, master.as<float>(), exp_avg.as<float>(),
                           exp_avg_sq.as<float>()};
}

DeviceAdamW::DeviceAdamW(const dpt_host* host, const sdk::Config& config)
    : host_(host),
      on_gpu_(host->device_is_gpu(host, &device_index_) != 0),
      cpu_variant_(choose_variant(config.get_string("kernel"))),
      defaults_{config.get_float("lr"), config.get_float("beta1"), config.get_float("beta2"),
                config.get_float("eps"), config.get_float("weight_decay")} {
#ifndef DOPANT_ADAMW_HAVE_CUDA
  if (on_gpu_) sdk::fail(DPT_UNIMPLEMENTED, "adamw was built without CUDA");
#endif
}

void DeviceAdamW::add_param_group(const dpt_param_group& group) {
  sdk::require(group.tensor_count == 0 || (group.tensor_names != nullptr &&
                                           group.params != nullptr && group.grads != nullptr),
               "param group: tensor names, params and grads must be non-NULL");
  std::unordered_set<std::string> names;
  for (const Tensor& t : tensors_) names.insert(t.name);
  for (uint32_t i = 0; i < group.tensor_count; ++i) {
    sdk::require(group.tensor_names[i] != nullptr, "param group: tensor name is NULL");
    const std::string name = group.tensor_names[i];
    sdk::require(names.insert(name).second, "duplicate tensor name `" + name + "`");
    check_tensor(name, group.params[i], group.grads[i], on_gpu_);
  }
  // Ask for the group's whole device state at once first: past the capacity limit the
  // host's out-of-memory error then names the bytes this group needs against the bytes
  // available, and the host's peak demand records them. The block is given back and the
  // state allocated per tensor.
  uint64_t state_bytes = 0;
  for (uint32_t i = 0; i < group.tensor_count; ++i) {
    const auto count = static_cast<uint64_t>(sdk::element_count(group.params[i]));
    const bool wide = dtype_of(group.tensor_names[i], group.params[i]) == adamw::ParamDtype::f32;
    state_bytes += (wide ? 2 : 3) * count * sizeof(float);
  }
  if (state_bytes != 0) sdk::Allocation whole_group(host_, DPT_MEMORY_DEVICE, state_bytes);
  // Allocate everything first, so a refused group leaves the instance unchanged.
  std::vector<Tensor> added;
  for (uint32_t i = 0; i < group.tensor_count; ++i) added.push_back(make_tensor(group, i));
  tensors_.reserve(tensors_.size() + added.size());
  groups_.push_back(Hyper{configured_or(group.lr, defaults_.lr),
                          configured_or(group.beta1, defaults_.beta1),
                          configured_or(group.beta2, defaults_.beta2),
                          configured_or(group.eps, defaults_.eps),
                          configured_or(group.weight_decay, defaults_.weight_decay)});
  for (Tensor& t : added) tensors_.push_back(std::move(t));
}

DeviceAdamW::Tensor DeviceAdamW::make_tensor(const dpt_param_group& group,
                                             uint32_t index) const {
  const DLTensor& param = group.params[index];
  const std::string name = group.tensor_names[index];
  const auto count = static_cast<uint64_t>(sdk::element_count(param));
  const adamw::ParamDtype dtype = dtype_of(name, param);
  const uint64_t state_bytes = count * sizeof(float);
  Tensor t{name,
           groups_.size(),
           dtype,
           sdk::data_as<void>(param),
           sdk::data_as<const void>(group.grads[index]),
           count,
           std::vector<int64_t>(param.shape, param.shape + param.ndim),
           0,
           sdk::Allocation(host_, DPT_MEMORY_DEVICE, state_bytes),
           sdk::Allocation(host_, DPT_MEMORY_DEVICE, state_bytes),
           dtype == adamw::ParamDtype::f32
               ? sdk::Allocation()
               : sdk::Allocation(host_, DPT_MEMORY_DEVICE, state_bytes)};
  const std::vector<float> zeros(count, 0.0f);
  upload(host_, t.exp_avg.data(), zeros.data(), state_bytes);
  upload(host_, t.exp_avg_sq.data(), zeros.data(), state_bytes);
  if (dtype != adamw::ParamDtype::f32) {  // master = the parameter, widened exactly
    std::vector<uint16_t> narrow(count);
    download(host_, narrow.data(), t.param, count * sizeof(uint16_t));
    std::vector<float> wide(count);
    adamw::widen_to_float(cpu_variant_, dtype, narrow.data(), wide.data(), count);
    upload(host_, t.master.data(), wide.data(), state_bytes);
  }
  return t;
}

adamw::StepScalars DeviceAdamW::scalars_for(const Tensor& tensor,
                                            const dpt_step_args& args) const {
  const Hyper& h = groups_[tensor.group];
  return adamw::make_step_scalars(adamw::StepHyper{
      .lr = h.lr, .beta1 = h.beta1, .beta2 = h.beta2, .eps = h.eps,
      .weight_decay = h.weight_decay, .step = tensor.step, .lr_scale = args.lr_scale,
      .grad_scale = args.grad_scale});
}

void DeviceAdamW::step(const dpt_step_args& args, dpt_stream* stream) {
  sdk::require(args.grad_scale > 0.0 && std::isfinite(args.grad_scale),
               "step: grad_scale must be a positive finite number");
  sdk::require(std::isfinite(args.lr_scale), "step: lr_scale must be finite");
  for (Tensor& t : tensors_) ++t.step;
  if (on_gpu_) {
    step_gpu(args, stream);
    last_stream_ = stream;
  } else {
    step_cpu(args);
  }
}

void DeviceAdamW::step_cpu(const dpt_step_args& args) {
  for (const Tensor& t : tensors_) {
    RangeUpdate update{host_, cpu_variant_, t.dtype, scalars_for(t, args), t.refs()};
    sdk::check(host_, host_->parallel_for(host_, 0, t.count, kElementsPerTask, &update_range,
                                          &update));
  }
}

void DeviceAdamW::step_gpu([[maybe_unused]] const dpt_step_args& args,
                           [[maybe_unused]] dpt_stream* stream) {
#ifdef DOPANT_ADAMW_HAVE_CUDA
  // One launch list per run of consecutive tensors sharing group, dtype and step count.
  void* native = host_->stream_native(host_, stream);
  std::vector<adamw::cuda::DeviceTensor> batch;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    batch.push_back({t.refs(), t.count});
    const bool last = i + 1 == tensors_.size();
    if (last || tensors_[i + 1].group != t.group || tensors_[i + 1].dtype != t.dtype ||
        tensors_[i + 1].step != t.step) {
      adamw::cuda::launch_step(t.dtype, scalars_for(t, args), batch.data(), batch.size(),
                               native);
      batch.clear();
    }
  }
#endif
}

void DeviceAdamW::wait_for_steps() const {
  sdk::check(host_, host_->stream_synchronize(host_, last_stream_));
}

void DeviceAdamW::export_state(const sdk::StateVisitor& visit) const {
  wait_for_steps();
  for (const Tensor& t : tensors_) {
    const float step = static_cast<float>(t.step);  // PyTorch keeps a 0-d fp32 tensor
    int64_t no_dims = 0;
    visit(t.name.c_str(), "step",
          DLTensor{const_cast<float*>(&step), {kDLCPU, 0}, 0, sdk::kFloat32, &no_dims, &no_dims, 0});
    std::vector<int64_t> strides(t.shape.size());
    int64_t stride = 1;
    for (size_t d = t.shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= t.shape[d];
    }
    const auto visit_floats = [&](const char* state, const sdk::Allocation& device) {
      std::vector<float> host_copy = download_floats(host_, device.as<float>(), t.count);
      visit(t.name.c_str(), state,
            DLTensor{host_copy.data(), {kDLCPU, 0}, static_cast<int>(t.shape.size()),
                     sdk::kFloat32, const_cast<int64_t*>(t.shape.data()), strides.data(), 0});
    };
    visit_floats("exp_avg", t.exp_avg);
    visit_floats("exp_avg_sq", t.exp_avg_sq);
    if (t.dtype != adamw::ParamDtype::f32) visit_floats("master", t.master);
  }
}

void DeviceAdamW::import_state(const char* tensor_name, const char* state,
                               const DLTensor& value) {
  Tensor& t = find(tensor_name);
  wait_for_steps();
  const std::string what = std::string("state `") + state + "` of `" + t.name + "`";
  sdk::require(sdk::is_contiguous(value), what + ": not contiguous");
  if (std::strcmp(state, "step") == 0) {
    sdk::require(sdk::element_count(value) == 1 && sdk::is_fp32(value),
                 what + ": expected one fp32 value");
    const float step = *sdk::data_as<const float>(value);
    sdk::require(step >= 0.0f && std::floor(step) == step, what + ": not a step count");
    t.step = static_cast<uint64_t>(step);
    return;
  }
  const sdk::Allocation* target = nullptr;
  if (std::strcmp(state, "exp_avg") == 0) target = &t.exp_avg;
  if (std::strcmp(state, "exp_avg_sq") == 0) target = &t.exp_avg_sq;
  if (std::strcmp(state, "master") == 0 && t.dtype != adamw::ParamDtype::f32) target = &t.master;
  if (target == nullptr) sdk::fail(DPT_NOT_FOUND, "adamw has no " + what);
  sdk::require(sdk::is_fp32(value) &&
                   static_cast<uint64_t>(sdk::element_count(value)) == t.count,
               what + ": expected " + std::to_string(t.count) + " fp32 elements");
  upload(host_, target->data(), sdk::data_as<const float>(value), t.count * sizeof(float));
}

dpt_optimizer_memory DeviceAdamW::memory() const {
  dpt_optimizer_memory out{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0};
  for (const Tensor& t : tensors_) {
    out.device_state_bytes += t.exp_avg.bytes() + t.exp_avg_sq.bytes() + t.master.bytes();
  }
  return out;
}

DeviceAdamW::Tensor& DeviceAdamW::find(const char* name) {
  for (Tensor& t : tensors_) {
    if (t.name == name) return t;
  }
  sdk::fail(DPT_NOT_FOUND, std::string("no tensor named `") + name + "`");
}

}  // namespace dopant::adamw_plugin
