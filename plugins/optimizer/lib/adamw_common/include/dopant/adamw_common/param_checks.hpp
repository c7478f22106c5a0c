// Checks of what an AdamW plugin is handed: a param group's tensors and the step arguments,
// each failure an sdk::Error naming the tensor.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <string>
#include <unordered_set>

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

}  // namespace dopant::adamw_common
