// DeviceAdamW: state allocation, the CPU and GPU steps, and state export and import, with
// the checks and PyTorch's state names of dopant_adamw_common.
#include "device_adamw.hpp"

#include <unordered_set>
#include <utility>

#include "dopant/adamw_common/param_checks.hpp"
#include "dopant/adamw_common/state_transfer.hpp"
#ifdef DOPANT_ADAMW_HAVE_CUDA
#include "dopant/adamw_kernels/cuda_step.hpp"
#endif

namespace dopant::adamw_plugin {
namespace {

using adamw_common::param_dtype;

constexpr uint64_t kElementsPerTask = uint64_t{1} << 16;

// Arguments of one parallel_for over the elements of a tensor.
struct RangeUpdate {
  const dpt_host* host;
  adamw_kernels::Variant variant;
  adamw_kernels::ParamDtype dtype;
  adamw_kernels::StepScalars scalars;
  adamw_kernels::TensorRefs refs;
};

dpt_error* update_range(void* context, uint64_t begin, uint64_t end) {
  const auto& u = *static_cast<const RangeUpdate*>(context);
  return sdk::guard(u.host, [&] {
    adamw_kernels::step_range(u.variant, u.dtype, u.scalars, u.refs, begin, end);
  });
}

adamw_kernels::Variant choose_variant(const std::string& kernel) {
  if (kernel == "auto") return adamw_kernels::active_variant();
  const std::optional<adamw_kernels::Variant> variant = adamw_kernels::parse_variant(kernel);
  sdk::require(variant.has_value(), "kernel `" + kernel + "` is not an AdamW kernel variant");
  if (!adamw_kernels::variant_supported(*variant)) {
    sdk::fail(DPT_UNIMPLEMENTED, "kernel `" + kernel + "` is not supported by this CPU");
  }
  return *variant;
}

}  // namespace

adamw_kernels::TensorRefs DeviceAdamW::Tensor::refs() const {
  return adamw_kernels::TensorRefs{param, grad, master.as<float>(), exp_avg.as<float>(),
                                   exp_avg_sq.as<float>()};
}

DeviceAdamW::DeviceAdamW(const dpt_host* host, const sdk::Config& config)
    : host_(host),
      on_gpu_(host->device_is_gpu(host, &device_index_) != 0),
      cpu_variant_(choose_variant(config.get_string("kernel"))),
      defaults_(adamw_common::GroupHyper::configured(config)),
      copies_(host) {
#ifndef DOPANT_ADAMW_HAVE_CUDA
  if (on_gpu_) sdk::fail(DPT_UNIMPLEMENTED, "adamw was built without CUDA");
#endif
}

void DeviceAdamW::add_param_group(const dpt_param_group& group) {
  std::unordered_set<std::string> taken;
  for (const Tensor& t : tensors_) taken.insert(t.name);
  adamw_common::check_group(group, taken, on_gpu_);
  // Ask for the group's whole device state at once first: past the capacity limit the
  // host's out-of-memory error then names the bytes this group needs against the bytes
  // available, and the host's peak demand records them. The block is given back and the
  // state allocated per tensor.
  uint64_t state_bytes = 0;
  for (uint32_t i = 0; i < group.tensor_count; ++i) {
    const auto count = static_cast<uint64_t>(sdk::element_count(group.params[i]));
    const bool wide =
        param_dtype(group.tensor_names[i], group.params[i]) == adamw_kernels::ParamDtype::f32;
    state_bytes += (wide ? 2 : 3) * count * sizeof(float);
  }
  if (state_bytes != 0) sdk::Allocation whole_group(host_, DPT_MEMORY_DEVICE, state_bytes);
  // Allocate everything first, so a refused group leaves the instance unchanged.
  std::vector<Tensor> added;
  for (uint32_t i = 0; i < group.tensor_count; ++i) added.push_back(make_tensor(group, i));
  tensors_.reserve(tensors_.size() + added.size());
  groups_.push_back(adamw_common::GroupHyper::resolve(group, defaults_));
  for (Tensor& t : added) tensors_.push_back(std::move(t));
}

DeviceAdamW::Tensor DeviceAdamW::make_tensor(const dpt_param_group& group,
                                             uint32_t index) const {
  const DLTensor& param = group.params[index];
  const std::string name = group.tensor_names[index];
  const auto count = static_cast<uint64_t>(sdk::element_count(param));
  const adamw_kernels::ParamDtype dtype = param_dtype(name, param);
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
           dtype == adamw_kernels::ParamDtype::f32
               ? sdk::Allocation()
               : sdk::Allocation(host_, DPT_MEMORY_DEVICE, state_bytes)};
  const std::vector<float> zeros(count, 0.0f);
  copies_.upload(t.exp_avg.data(), zeros.data(), state_bytes);
  copies_.upload(t.exp_avg_sq.data(), zeros.data(), state_bytes);
  if (dtype != adamw_kernels::ParamDtype::f32) {
    const std::vector<float> master = copies_.download_widened(cpu_variant_, dtype, t.param, count);
    copies_.upload(t.master.data(), master.data(), state_bytes);
  }
  return t;
}

adamw_kernels::StepScalars DeviceAdamW::scalars_for(const Tensor& tensor,
                                                    const dpt_step_args& args) const {
  return adamw_kernels::make_step_scalars(groups_[tensor.group].at_step(tensor.step + 1, args));
}

// Step counters advance only once the whole step is queued (or done, on a CPU), so a step
// that fails leaves the counts of the steps that happened.
void DeviceAdamW::step(const dpt_step_args& args, dpt_stream* stream) {
  adamw_common::check_step_args(args);
  const DLTensor* moved = adamw_common::checked_step_gradients(args, tensors_, on_gpu_);
  if (on_gpu_) {
    step_gpu(args, moved, stream);
    copies_.step_queued(stream);
  } else {
    step_cpu(args, moved);
  }
  for (Tensor& t : tensors_) ++t.step;
}

adamw_kernels::TensorRefs DeviceAdamW::refs_for(size_t index, const DLTensor* moved) const {
  adamw_kernels::TensorRefs refs = tensors_[index].refs();
  if (moved != nullptr) refs.grad = sdk::data_as<const void>(moved[index]);
  return refs;
}

void DeviceAdamW::step_cpu(const dpt_step_args& args, const DLTensor* moved) {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    RangeUpdate update{host_, cpu_variant_, t.dtype, scalars_for(t, args), refs_for(i, moved)};
    sdk::check(host_, host_->parallel_for(host_, 0, t.count, kElementsPerTask, &update_range,
                                          &update));
  }
}

void DeviceAdamW::step_gpu([[maybe_unused]] const dpt_step_args& args,
                           [[maybe_unused]] const DLTensor* moved,
                           [[maybe_unused]] dpt_stream* stream) {
#ifdef DOPANT_ADAMW_HAVE_CUDA
  const adamw_kernels::cuda::DeviceScope scope(device_index_);  // any thread may call step
  std::vector<adamw_kernels::cuda::BatchedTensor> updates;
  updates.reserve(tensors_.size());
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    updates.push_back({t.dtype, scalars_for(t, args), {refs_for(i, moved), t.count}});
  }
  adamw_kernels::cuda::launch_batched(updates.data(), updates.size(),
                                      host_->stream_native(host_, stream));
#endif
}

void DeviceAdamW::export_state(const sdk::StateVisitor& visit) const {
  copies_.wait_for_steps();
  const auto download_floats = [&](const sdk::Allocation& device, uint64_t count) {
    std::vector<float> values(count);
    copies_.download(values.data(), device.data(), count * sizeof(float));
    return values;
  };
  for (const Tensor& t : tensors_) {
    const bool has_master = t.dtype != adamw_kernels::ParamDtype::f32;
    const adamw_common::HostState state{
        t.step, has_master, download_floats(t.exp_avg, t.count),
        download_floats(t.exp_avg_sq, t.count),
        has_master ? download_floats(t.master, t.count) : std::vector<float>()};
    adamw_common::visit_torch_state(visit, t.name, t.shape, state);
  }
}

void DeviceAdamW::import_state(const char* tensor_name, const char* state,
                               const DLTensor& value) {
  Tensor& t = find(tensor_name);
  copies_.wait_for_steps();
  const uint32_t arrays = t.dtype == adamw_kernels::ParamDtype::f32 ? 2 : 3;
  const adamw_common::ImportTarget target =
      adamw_common::parse_import(t.name, state, value, t.count, arrays);
  if (target.is_step) {
    t.step = target.step;
    return;
  }
  const sdk::Allocation* arrays_of_t[] = {&t.exp_avg, &t.exp_avg_sq, &t.master};
  copies_.upload(arrays_of_t[static_cast<uint32_t>(target.array)]->data(),
                 sdk::data_as<const float>(value), t.count * sizeof(float));
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
