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

// The per-step gradients of `args` (one per tensor, in tensor order), each checked against
// its tensor, or nullptr when the caller passed none and every tensor reads its own `grad`.
// `Tensor` has name, dtype and shape.
template <typename Tensor>
const DLTensor* checked_step_gradients(const dpt_step_args& args, const std::vector<Tensor>& tensors,
                                       bool on_gpu) {
  const DLTensor* moved = sdk::step_gradients(args, tensors.size());
  if (moved != nullptr) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      check_step_gradient(tensors[i].name, tensors[i].dtype, tensors[i].shape, moved[i], on_gpu);
    }
  }
  return moved;
}

}  // namespace dopant::adamw_common
