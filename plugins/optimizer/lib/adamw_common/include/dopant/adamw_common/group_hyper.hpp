// A param group's AdamW hyper-parameters: NaN in the group means "the plugin's configured
// value" (optimizer.h), and each step turns them into the kernel's StepHyper.
#pragma once

#include <dopant/optimizer.h>
#include <dopant/sdk/config.hpp>

#include <cstdint>

#include "dopant/adamw_kernels/step_scalars.hpp"

namespace dopant::adamw_common {

struct GroupHyper {
  double lr, beta1, beta2, eps, weight_decay;

  // The plugin's configured values of the parameters of hyper_params.hpp.
  static GroupHyper configured(const sdk::Config& config);

  // The group's values, each NaN replaced by the one in `configured`.
  static GroupHyper resolve(const dpt_param_group& group, const GroupHyper& configured);

  // The kernel's hyper-parameters for update number `step` (1 for the first).
  adamw_kernels::StepHyper at_step(uint64_t step, const dpt_step_args& args) const;
};

}  // namespace dopant::adamw_common
