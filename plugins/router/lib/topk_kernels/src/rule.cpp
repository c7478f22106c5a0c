// What surrounds a routing call: the check that a rule fits an expert count, with errors
// naming the plugin parameter, and the per-expert load count.
#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "dopant/topk_kernels/routing.hpp"

namespace dopant::topk_kernels {

void check_rule(const RoutingRule& rule, int64_t experts) {
  const std::string e = std::to_string(experts) + " experts";
  sdk::require(rule.top_k >= 1 && rule.top_k <= experts,
               "top_k " + std::to_string(rule.top_k) + " must lie in [1, " + std::to_string(experts) + "] for " + e);
  sdk::require(rule.n_group >= 1 && experts % rule.n_group == 0,
               "n_group " + std::to_string(rule.n_group) + " must divide " + e);
  sdk::require(rule.n_group == 1 || experts / rule.n_group >= 2,
               "n_group " + std::to_string(rule.n_group) + " leaves fewer than 2 experts per group of " + e +
                   " (a group is scored by its top 2)");
  sdk::require(rule.topk_group >= 1 && rule.topk_group <= rule.n_group,
               "topk_group " + std::to_string(rule.topk_group) + " must lie in [1, n_group = " +
                   std::to_string(rule.n_group) + "]");
  sdk::require(rule.top_k <= experts / rule.n_group * rule.topk_group,
               "top_k " + std::to_string(rule.top_k) + " is more than the " +
                   std::to_string(experts / rule.n_group * rule.topk_group) + " experts of topk_group " +
                   std::to_string(rule.topk_group) + " groups");
  sdk::require(std::isfinite(rule.routed_scaling_factor) && rule.routed_scaling_factor > 0.0f,
               "routed_scaling_factor must be finite and > 0");
}

void count_load(const int32_t* ids, int64_t count, int64_t experts, int64_t* load) {
  std::fill(load, load + experts, int64_t{0});
  for (int64_t i = 0; i < count; ++i) ++load[ids[i]];
}

}  // namespace dopant::topk_kernels
