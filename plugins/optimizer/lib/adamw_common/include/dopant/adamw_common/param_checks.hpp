// Checks of what an AdamW plugin is handed: a param group's tensors and the step arguments,
// each failure an sdk::Error naming the tensor.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <string>
#include <unordered_set>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_common {

// The parameter format of `param`; DPT_INVALID_ARGUMENT for anything but fp32, bf16, fp16.
adamw_kernels::ParamDtype param_dtype(const std::string& name, const DLTensor& param);

// Checks every tensor of `group`: non-NULL arrays and names, names unique among themselves
// and `taken`, gradient dtype and shape equal to the parameter's, a supported dtype,
// contiguous, in the run's device memory (CUDA when `on_gpu`, host otherwise).
void check_group(const dpt_param_group& group, const std::unordered_set<std::string>& taken,
                 bool on_gpu);

// grad_scale must be positive and finite, lr_scale finite.
void check_step_args(const dpt_step_args& args);

// Checks one per-step gradient (dpt_step_args.grads) against its tensor: the parameter's
// dtype and shape, contiguous, in the run's device memory.
void check_step_gradient(const std::string& name, adamw_kernels::ParamDtype dtype,
                         const std::vector<int64_t>& shape, const DLTensor& grad, bool on_gpu);

// The gradient each tensor reads this step, in tensor order: the per-step gradients of
// `args` when the caller passed them (each checked), otherwise each tensor's own `grad`.
// `Tensor` has name, dtype, shape and grad.
template <typename Tensor>
std::vector<const void*> step_grads(const dpt_step_args& args, const std::vector<Tensor>& tensors,
                                    bool on_gpu) {
  std::vector<const void*> grads;
  grads.reserve(tensors.size());
  const DLTensor* moved = sdk::step_gradients(args, tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (moved == nullptr) {
      grads.push_back(t.grad);
      continue;
    }
    check_step_gradient(t.name, t.dtype, t.shape, moved[i], on_gpu);
    grads.push_back(sdk::data_as<const void>(moved[i]));
  }
  return grads;
}

}  // namespace dopant::adamw_common
