// param_dtype, check_group, check_step_args (see param_checks.hpp).
#include "dopant/adamw_common/param_checks.hpp"

#include <algorithm>
#include <cmath>

namespace dopant::adamw_common {
namespace {

void check_in_run_memory(const std::string& name, const DLTensor& t, bool on_gpu) {
  sdk::require(sdk::is_contiguous(t), "tensor `" + name + "`: not contiguous");
  const bool device_ok = on_gpu ? t.device.device_type == kDLCUDA
                                : t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost;
  sdk::require(device_ok, "tensor `" + name + "`: not in the run's device memory (" +
                              (on_gpu ? "CUDA" : "CPU") + ")");
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
  param_dtype(name, param);
  sdk::checked_byte_size(param, "tensor `" + name + "`");
  check_in_run_memory(name, param, on_gpu);
  check_in_run_memory(name, grad, on_gpu);
}

}  // namespace

adamw_kernels::ParamDtype param_dtype(const std::string& name, const DLTensor& param) {
  if (sdk::is_fp32(param)) return adamw_kernels::ParamDtype::f32;
  if (sdk::is_bf16(param)) return adamw_kernels::ParamDtype::bf16;
  if (sdk::is_fp16(param)) return adamw_kernels::ParamDtype::f16;
  sdk::fail(DPT_INVALID_ARGUMENT, "tensor `" + name + "`: dtype " +
                                      sdk::dtype_name(param.dtype) +
                                      " is not supported (AdamW takes fp32, bf16 and fp16)");
}

void check_group(const dpt_param_group& group, const std::unordered_set<std::string>& taken,
                 bool on_gpu) {
  sdk::require(group.tensor_count == 0 || (group.tensor_names != nullptr &&
                                           group.params != nullptr && group.grads != nullptr),
               "param group: tensor names, params and grads must be non-NULL");
  std::unordered_set<std::string> names = taken;
  for (uint32_t i = 0; i < group.tensor_count; ++i) {
    sdk::require(group.tensor_names[i] != nullptr, "param group: tensor name is NULL");
    const std::string name = group.tensor_names[i];
    sdk::require(names.insert(name).second, "duplicate tensor name `" + name + "`");
    check_tensor(name, group.params[i], group.grads[i], on_gpu);
  }
}

void check_step_gradient(const std::string& name, adamw_kernels::ParamDtype dtype,
                         const std::vector<int64_t>& shape, const DLTensor& grad, bool on_gpu) {
  sdk::require(grad.shape != nullptr || grad.ndim == 0, "tensor `" + name + "`: step gradient has no shape");
  const bool same_shape = std::equal(shape.begin(), shape.end(), grad.shape, grad.shape + grad.ndim);
  sdk::require(same_shape, "tensor `" + name + "`: step gradient shape " + sdk::shape_string(grad) +
                               " differs from the parameter's");
  sdk::require(param_dtype(name, grad) == dtype, "tensor `" + name + "`: step gradient dtype " +
                                                     sdk::dtype_name(grad.dtype) + " differs from the parameter's");
  check_in_run_memory(name, grad, on_gpu);
}

void check_step_args(const dpt_step_args& args) {
  sdk::require(args.grad_scale > 0.0 && std::isfinite(args.grad_scale),
               "step: grad_scale must be a positive finite number");
  sdk::require(std::isfinite(args.lr_scale), "step: lr_scale must be finite");
}

}  // namespace dopant::adamw_common
