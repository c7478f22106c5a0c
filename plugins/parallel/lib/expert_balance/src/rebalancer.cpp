// The moving-window rebalancer (see rebalancer.hpp).
#include "dopant/expert_balance/rebalancer.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>

#include "dopant/expert_balance/alignment.hpp"
#include "dopant/expert_balance/planner.hpp"
#include "expert_load.hpp"

namespace dopant::expert_balance {

namespace {

double max_of(const std::vector<double>& loads) { return *std::max_element(loads.begin(), loads.end()); }

}  // namespace

Rebalancer::Rebalancer(Placement initial, RebalancerConfig config)
    : placement_(std::move(initial)), config_(config), window_sum_(placement_.experts(), 0) {
  sdk::require(config.window_steps >= 1, "rebalancer: window_steps is 0; the window needs at least one step");
  sdk::require(config.imbalance_threshold == 0 || config.imbalance_threshold > 1,
               "rebalancer: imbalance_threshold " + std::to_string(config.imbalance_threshold) +
                   " must be 0 (off) or above 1 (max/mean is never below 1)");
  sdk::require(config.min_gain >= 0 && config.min_gain < 1,
               "rebalancer: min_gain " + std::to_string(config.min_gain) + " must be in [0, 1)");
}

std::optional<Rebalance> Rebalancer::observe(std::span<const int64_t> step_load) {
  check_expert_load(step_load, placement_.experts(), "rebalancer step load");
  const size_t ring_index = steps_ % config_.window_steps;
  if (window_.size() < config_.window_steps) {
    window_.emplace_back(step_load.begin(), step_load.end());
  } else {
    std::vector<int64_t>& oldest = window_[ring_index];
    for (size_t e = 0; e < oldest.size(); ++e) window_sum_[e] -= oldest[e];
    oldest.assign(step_load.begin(), step_load.end());
  }
  for (size_t e = 0; e < step_load.size(); ++e) window_sum_[e] += step_load[e];
  ++steps_;
  ++steps_since_plan_;

  const std::vector<double> before = placement_.rank_loads(window_sum_);
  const double imbalance_before = imbalance(before);
  const bool scheduled = config_.period_steps > 0 && steps_since_plan_ >= config_.period_steps;
  const bool too_uneven = config_.imbalance_threshold > 0 && imbalance_before > config_.imbalance_threshold;
  if (!scheduled && !too_uneven) return std::nullopt;
  steps_since_plan_ = 0;

  Placement proposed =
      align_to(placement_, plan_placement(window_sum_, placement_.ranks(), placement_.slots_per_rank()));
  const std::vector<double> after = proposed.rank_loads(window_sum_);
  // Adopt when max_after < max_before * (1 - min_gain), i.e. the drop exceeds min_gain.
  if (!(max_of(after) < max_of(before) * (1.0 - config_.min_gain))) return std::nullopt;
  Rebalance adopted{proposed, steps_, moved_slots(placement_, proposed), imbalance_before, imbalance(after)};
  placement_ = std::move(proposed);
  return adopted;
}

}  // namespace dopant::expert_balance
