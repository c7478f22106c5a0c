// The AdamW hyper-parameters of both AdamW plugins: their declarations, with PyTorch's
// defaults (each plugin lists them in its own parameter array), and a param group's values,
// where NaN means "the plugin's configured value" (optimizer.h), turned each step into the
// kernel's StepHyper.
#pragma once

#include <dopant/optimizer.h>
#include <dopant/sdk/config.hpp>
#include <dopant/sdk/params.hpp>

#include <cstdint>

#include "dopant/adamw_kernels/step_scalars.hpp"

namespace dopant::adamw_common {

inline constexpr dpt_param_decl kLrParam = sdk::float_param("lr", "1e-3", "learning rate").min("0");
inline constexpr dpt_param_decl kBeta1Param =
    sdk::float_param("beta1", "0.9", "decay of the first moment (exp_avg)").range("0", "1");
inline constexpr dpt_param_decl kBeta2Param =
    sdk::float_param("beta2", "0.999", "decay of the second moment (exp_avg_sq)").range("0", "1");
inline constexpr dpt_param_decl kEpsParam =
    sdk::float_param("eps", "1e-8", "added to the denominator").min("0");
inline constexpr dpt_param_decl kWeightDecayParam =
    sdk::float_param("weight_decay", "1e-2", "decoupled weight decay").min("0");

struct GroupHyper {
  double lr, beta1, beta2, eps, weight_decay;

  // The plugin's configured values of the parameters declared above.
  static GroupHyper configured(const sdk::Config& config);

  // The group's values, each NaN replaced by the one in `configured`.
  static GroupHyper resolve(const dpt_param_group& group, const GroupHyper& configured);

  // The kernel's hyper-parameters for update number `step` (1 for the first).
  adamw_kernels::StepHyper at_step(uint64_t step, const dpt_step_args& args) const;
};

}  // namespace dopant::adamw_common
