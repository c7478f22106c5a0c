// The AdamW hyper-parameters both AdamW plugins declare, with PyTorch's defaults; each
// plugin lists them in its own parameter array. GroupHyper::configured reads them back.
#pragma once

#include <dopant/sdk/params.hpp>

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

}  // namespace dopant::adamw_common
