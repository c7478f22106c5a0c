// make_step_scalars: torch.optim.AdamW's Python-float scalar arithmetic, in double, then
// one rounding to float per scalar, as PyTorch's fp32 CPU kernels do.
#include "dopant/adamw_kernels/step_scalars.hpp"

#include <cmath>
#include <stdexcept>

namespace dopant::adamw_kernels {

StepScalars make_step_scalars(const StepHyper& hyper) {
  if (hyper.step == 0) throw std::invalid_argument("AdamW step count starts at 1");
  if (!(hyper.grad_scale > 0.0) || !std::isfinite(hyper.grad_scale)) {
    throw std::invalid_argument("AdamW grad_scale must be a positive finite number");
  }
  const double lr = hyper.lr * hyper.lr_scale;
  const auto step = static_cast<double>(hyper.step);
  const double bias_correction1 = 1.0 - std::pow(hyper.beta1, step);
  const double bias_correction2 = 1.0 - std::pow(hyper.beta2, step);
  const double step_size = lr / bias_correction1;
  return StepScalars{
      .decay = static_cast<float>(1.0 - lr * hyper.weight_decay),
      .beta1 = static_cast<float>(hyper.beta1),
      .one_minus_beta1 = static_cast<float>(1.0 - hyper.beta1),
      .beta2 = static_cast<float>(hyper.beta2),
      .one_minus_beta2 = static_cast<float>(1.0 - hyper.beta2),
      .bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2)),
      .eps = static_cast<float>(hyper.eps),
      .neg_step_size = static_cast<float>(-step_size),
      .inv_grad_scale = static_cast<float>(1.0 / hyper.grad_scale),
  };
}

}  // namespace dopant::adamw_kernels
