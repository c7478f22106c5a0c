// The per-step scalars of an AdamW update, rounded from double to float the way PyTorch
// 1.13 does: torch.optim.AdamW computes bias corrections and the step size as Python
// floats (double) and hands them to fp32 tensor ops, whose CPU kernels cast each scalar to
// float once. Computing them here, on the host, keeps every kernel variant on the same bits.
#pragma once

#include <cstdint>

namespace dopant::adamw_kernels {

// One param group's hyper-parameters for one step, as torch.optim.AdamW sees them.
struct StepHyper {
  double lr;
  double beta1;
  double beta2;
  double eps;
  double weight_decay;
  uint64_t step;            // 1 for the first update (PyTorch's state['step'] after += 1)
  double lr_scale = 1.0;    // multiplies lr in double (learning-rate schedules)
  double grad_scale = 1.0;  // gradients are multiplied by float(1 / grad_scale) (loss scaling)
};

struct StepScalars {
  float decay;                  // float(1 - lr*wd)
  float beta1;                  // float(beta1)
  float one_minus_beta1;        // float(1 - beta1)
  float beta2;                  // float(beta2)
  float one_minus_beta2;        // float(1 - beta2)
  float bias_correction2_sqrt;  // float(sqrt(1 - beta2^step))
  float eps;                    // float(eps)
  float neg_step_size;          // float(-(lr / (1 - beta1^step)))
  float inv_grad_scale;         // float(1 / grad_scale); exactly 1 when grad_scale is 1
};

// Throws std::invalid_argument when step is 0 or grad_scale is not a positive finite number.
StepScalars make_step_scalars(const StepHyper& hyper);

}  // namespace dopant::adamw_kernels
