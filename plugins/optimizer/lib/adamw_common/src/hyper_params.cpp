// GroupHyper::configured, resolve and at_step (see hyper_params.hpp).
#include "dopant/adamw_common/hyper_params.hpp"

#include <cmath>

namespace dopant::adamw_common {
namespace {

double configured_or(double group_value, double configured) {
  return std::isnan(group_value) ? configured : group_value;
}

}  // namespace

GroupHyper GroupHyper::configured(const sdk::Config& config) {
  return GroupHyper{config.get_float("lr"), config.get_float("beta1"),
                    config.get_float("beta2"), config.get_float("eps"),
                    config.get_float("weight_decay")};
}

GroupHyper GroupHyper::resolve(const dpt_param_group& group, const GroupHyper& configured) {
  return GroupHyper{configured_or(group.lr, configured.lr),
                    configured_or(group.beta1, configured.beta1),
                    configured_or(group.beta2, configured.beta2),
                    configured_or(group.eps, configured.eps),
                    configured_or(group.weight_decay, configured.weight_decay)};
}

adamw_kernels::StepHyper GroupHyper::at_step(uint64_t step, const dpt_step_args& args) const {
  return adamw_kernels::StepHyper{.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                                  .weight_decay = weight_decay, .step = step,
                                  .lr_scale = args.lr_scale, .grad_scale = args.grad_scale};
}

}  // namespace dopant::adamw_common
