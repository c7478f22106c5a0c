// The moving-window rebalancer and the alignment it relies on, against references
// computed here: the window is the sum of the last W steps; a proposal comes on schedule or
// on the first step the current placement's imbalance passes the threshold, is the aligned
// plan of the window, is adopted only when it lowers the largest rank load, and reports
// the slots that changed.
#include <dopant/expert_balance/alignment.hpp>
#include <dopant/expert_balance/planner.hpp>
#include <dopant/expert_balance/rebalancer.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "balance_test_support.hpp"

namespace {

using dopant::balance_tests::refusal;
using dopant::balance_tests::zipf_load;
using dopant::expert_balance::align_to;
using dopant::expert_balance::imbalance;
using dopant::expert_balance::moved_slots;
using dopant::expert_balance::Placement;
using dopant::expert_balance::plan_placement;
using dopant::expert_balance::Rebalancer;
using dopant::expert_balance::RebalancerConfig;

std::vector<double> sorted_rank_loads(const Placement& placement, std::span<const int64_t> load) {
  std::vector<double> loads = placement.rank_loads(load);
  std::sort(loads.begin(), loads.end());
  return loads;
}

// `placement` with rank r moved to rank (r + shift) mod ranks and each rank's slots reversed.
Placement renamed(const Placement& placement, uint32_t shift) {
  const uint32_t ranks = placement.ranks();
  const uint32_t slots = placement.slots_per_rank();
  std::vector<uint32_t> table(size_t{ranks} * slots);
  for (uint32_t r = 0; r < ranks; ++r) {
    for (uint32_t s = 0; s < slots; ++s) table[((r + shift) % ranks) * slots + (slots - 1 - s)] = placement.expert_at(r, s);
  }
  return Placement(placement.experts(), ranks, slots, std::move(table));
}

TEST(ExpertAlignment, RenamingIsUndoneAndLoadsAreKept) {
  const std::vector<int64_t> load = zipf_load(32, 1.0, 10000, 2);
  const Placement plan = plan_placement(load, 4, 9);
  const Placement shuffled = renamed(plan, 1);
  EXPECT_EQ(moved_slots(plan, shuffled), 36u);
  EXPECT_EQ(align_to(plan, shuffled), plan);
  EXPECT_EQ(moved_slots(plan, align_to(plan, shuffled)), 0u);
  // Against a different placement, alignment keeps the per-rank loads and moves no more.
  const Placement other = plan_placement(zipf_load(32, 1.2, 10000, 3), 4, 9);
  const Placement aligned = align_to(plan, other);
  EXPECT_EQ(sorted_rank_loads(aligned, load), sorted_rank_loads(other, load));
  EXPECT_LE(moved_slots(plan, aligned), moved_slots(plan, other));
  EXPECT_NE(refusal([&] { align_to(plan, Placement::blocks(32, 4)); }).find("placements differ in shape"),
            std::string::npos);
}

TEST(ExpertRebalancer, WindowHoldsTheLastSteps) {
  Rebalancer rebalancer(Placement::blocks(4, 2), RebalancerConfig{3, 0, 0});
  std::vector<std::vector<int64_t>> steps;
  for (int64_t step = 0; step < 7; ++step) {
    steps.push_back({step, 2 * step, 1, step * step});
    EXPECT_FALSE(rebalancer.observe(steps.back()).has_value());
    std::vector<int64_t> expected(4, 0);
    for (size_t i = steps.size() > 3 ? steps.size() - 3 : 0; i < steps.size(); ++i) {
      for (size_t e = 0; e < 4; ++e) expected[e] += steps[i][e];
    }
    EXPECT_EQ(std::vector<int64_t>(rebalancer.window_load().begin(), rebalancer.window_load().end()), expected)
        << "after step " << step;
  }
  EXPECT_EQ(rebalancer.steps(), 7u);
}

// Every 4 steps a plan is due: the first (step 4) is adopted with the aligned plan of the
// window; at step 8 the same load plans the same loads again, which is no improvement.
TEST(ExpertRebalancer, ProposesOnScheduleOnlyWhenItHelps) {
  const Placement blocks = Placement::blocks(64, 8);
  const Placement start(64, 8, 8, std::vector<uint32_t>(blocks.slot_experts().begin(), blocks.slot_experts().end()));
  Rebalancer rebalancer(start, RebalancerConfig{4, 4, 0});
  const std::vector<int64_t> load = zipf_load(64, 1.2, 1000, 9);
  for (uint32_t step = 1; step <= 3; ++step) EXPECT_FALSE(rebalancer.observe(load).has_value()) << step;
  const auto adopted = rebalancer.observe(load);
  ASSERT_TRUE(adopted.has_value());
  std::vector<int64_t> window(load.size());
  for (size_t e = 0; e < load.size(); ++e) window[e] = 4 * load[e];
  const Placement expected = align_to(start, plan_placement(window, 8, 8));
  EXPECT_EQ(adopted->placement, expected);
  EXPECT_EQ(rebalancer.placement(), expected);
  EXPECT_EQ(adopted->step, 4u);
  EXPECT_EQ(adopted->moved_slots, moved_slots(start, expected));
  EXPECT_GT(adopted->moved_slots, 0u);
  EXPECT_DOUBLE_EQ(adopted->imbalance_before, imbalance(start.rank_loads(window)));
  EXPECT_DOUBLE_EQ(adopted->imbalance_after, imbalance(expected.rank_loads(window)));
  EXPECT_LT(adopted->imbalance_after, adopted->imbalance_before);
  for (uint32_t step = 5; step <= 8; ++step) EXPECT_FALSE(rebalancer.observe(load).has_value()) << step;
  EXPECT_EQ(rebalancer.placement(), expected);
}

// The first scheduled plan above lowers the largest rank load by some fraction `gain`: a
// min_gain just below it adopts the plan, one just above keeps the blocks.
TEST(ExpertRebalancer, AdoptsOnlyAboveTheMinimumGain) {
  const Placement start = Placement::blocks(64, 8);
  const std::vector<int64_t> load = zipf_load(64, 1.0, 1000, 9);
  const std::vector<double> before = start.rank_loads(load);
  const std::vector<double> after = plan_placement(load, 8, 8).rank_loads(load);
  const double gain = 1.0 - *std::max_element(after.begin(), after.end()) / *std::max_element(before.begin(), before.end());
  ASSERT_GT(gain, 0.01);
  Rebalancer eager(start, RebalancerConfig{1, 1, 0, gain - 1e-6});
  EXPECT_TRUE(eager.observe(load).has_value());
  Rebalancer reluctant(start, RebalancerConfig{1, 1, 0, gain + 1e-6});
  EXPECT_FALSE(reluctant.observe(load).has_value());
  EXPECT_EQ(reluctant.placement(), start);
}

// No schedule, threshold 1.3: flat steps keep the blocks; once skewed steps start, the
// proposal comes on the first step whose window puts the blocks above 1.3.
TEST(ExpertRebalancer, ProposesWhenTheWindowPassesTheThreshold) {
  const Placement start = Placement::blocks(32, 4);
  Rebalancer rebalancer(start, RebalancerConfig{8, 0, 1.3});
  const std::vector<int64_t> flat(32, 100);
  for (int step = 0; step < 8; ++step) EXPECT_FALSE(rebalancer.observe(flat).has_value());
  const std::vector<int64_t> skewed = zipf_load(32, 1.2, 3200, 4);
  std::vector<std::vector<int64_t>> steps(8, flat);
  for (uint32_t step = 9; step <= 16; ++step) {
    steps.push_back(skewed);
    std::vector<int64_t> window(32, 0);
    for (size_t i = steps.size() - 8; i < steps.size(); ++i) {
      for (size_t e = 0; e < 32; ++e) window[e] += steps[i][e];
    }
    const bool due = imbalance(start.rank_loads(window)) > 1.3;
    const auto adopted = rebalancer.observe(skewed);
    ASSERT_EQ(adopted.has_value(), due) << "step " << step;
    if (due) {
      EXPECT_GT(step, 9u) << "the skew test is too weak to need a window";
      EXPECT_LE(adopted->imbalance_after, 1.3);
      return;
    }
  }
  FAIL() << "the threshold was never passed";
}

TEST(ExpertRebalancer, RefusesBadConfigAndLoads) {
  EXPECT_NE(refusal([] { Rebalancer(Placement::blocks(4, 2), RebalancerConfig{0, 1, 0}); }).find("window_steps is 0"),
            std::string::npos);
  EXPECT_NE(refusal([] { Rebalancer(Placement::blocks(4, 2), RebalancerConfig{2, 1, 1.0}); })
                .find("imbalance_threshold 1.000000 must be 0 (off) or above 1"),
            std::string::npos);
  EXPECT_NE(refusal([] { Rebalancer(Placement::blocks(4, 2), RebalancerConfig{2, 1, 0, 1.0}); })
                .find("min_gain 1.000000 must be in [0, 1)"),
            std::string::npos);
  Rebalancer rebalancer(Placement::blocks(4, 2), RebalancerConfig{2, 1, 0});
  const std::vector<int64_t> wrong{1, 2, 3};
  EXPECT_NE(refusal([&] { rebalancer.observe(wrong); }).find("rebalancer step load: 3 entries for 4 experts"),
            std::string::npos);
  EXPECT_EQ(rebalancer.steps(), 0u);
}

}  // namespace
