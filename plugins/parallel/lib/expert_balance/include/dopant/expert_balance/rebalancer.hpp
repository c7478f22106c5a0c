// The moving-window rebalancer: fed the observed per-expert load of every step, it keeps
// the sum over the last `window_steps` steps and proposes a new placement
//   - every `period_steps` steps since the last plan (0: never on a schedule), or
//   - on a step where the current placement's max/mean per-rank load over the window is
//     above `imbalance_threshold` (0: never on imbalance).
// The proposal is the planner's placement for the window's load (planner.hpp), renamed to
// move as few experts as possible (alignment.hpp). It is adopted and returned only when it
// serves the window with a maximum per-rank load lower than the current placement's by
// more than the fraction `min_gain` (0: any drop); otherwise nothing changes and no
// proposal is returned. Either way the period restarts.
//
// A fresh plan moves most slots even when the load has only drifted by sampling noise (the
// greedy order changes; docs/results.md measures it), so a period with no threshold and no
// min_gain copies most experts' weights every period. A threshold, or a min_gain above
// the step-to-step noise, keeps the placement until the load has really moved.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dopant/expert_balance/placement.hpp"

namespace dopant::expert_balance {

struct RebalancerConfig {
  uint32_t window_steps = 32;      // W >= 1
  uint32_t period_steps = 32;      // N; 0: only the threshold triggers
  double imbalance_threshold = 0;  // 0, or > 1: max/mean above it triggers
  double min_gain = 0;             // in [0, 1): the fraction the largest rank load must drop by
};

// A placement the rebalancer adopted.
struct Rebalance {
  Placement placement;
  uint64_t step;            // steps observed when it was made (1-based count)
  uint32_t moved_slots;     // slots whose expert changed: the weight copies to make
  double imbalance_before;  // max/mean per-rank load of the window, on the old placement
  double imbalance_after;   // the same on the new placement
};

class Rebalancer {
 public:
  // Refuses window_steps 0, a threshold in (0, 1] and a min_gain outside [0, 1), naming
  // the field.
  Rebalancer(Placement initial, RebalancerConfig config);

  // Adds one step's load ([experts] token counts, each >= 0) to the window, dropping the
  // step that falls out of it, and returns the placement adopted on this step, if any.
  std::optional<Rebalance> observe(std::span<const int64_t> step_load);

  const Placement& placement() const { return placement_; }
  // The sum of the window's steps, [experts].
  std::span<const int64_t> window_load() const { return window_sum_; }
  uint64_t steps() const { return steps_; }

 private:
  Placement placement_;
  RebalancerConfig config_;
  std::vector<std::vector<int64_t>> window_;  // ring of the last window_steps steps, [experts] each
  std::vector<int64_t> window_sum_;           // [experts]
  uint64_t steps_ = 0;
  uint64_t steps_since_plan_ = 0;
};

}  // namespace dopant::expert_balance
