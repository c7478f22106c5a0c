// The planner of dopant_expert_balance against plain references:
//   - replica counts equal the best counts found by enumerating every count vector (the
//     greedy step is optimal for the largest load per replica);
//   - with one slot per rank the plan's largest rank load equals the optimum over every
//     placement, found by enumeration; with more slots it is within kPackingBound of it;
//   - on Zipf-skewed loads every plan is valid (each expert placed, slots filled, replicas
//     on distinct ranks) and strictly more even than the contiguous blocks;
//   - plans are deterministic, the exchange that keeps replicas on distinct ranks gives
//     the placement worked by hand, and bad counts are refused by name.
#include <dopant/expert_balance/planner.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>

#include "balance_test_support.hpp"

namespace {

using dopant::balance_tests::refusal;
using dopant::balance_tests::zipf_load;
using dopant::expert_balance::imbalance;
using dopant::expert_balance::pack_replicas;
using dopant::expert_balance::Placement;
using dopant::expert_balance::plan_placement;
using dopant::expert_balance::replica_counts;

double max_rank_load(const Placement& placement, const std::vector<int64_t>& load) {
  const std::vector<double> loads = placement.rank_loads(load);
  return *std::max_element(loads.begin(), loads.end());
}

// The smallest largest-load-per-replica over every count vector (each in [1, ranks],
// summing to ranks * slots).
double best_max_per_replica(const std::vector<int64_t>& load, uint32_t ranks, uint32_t slots) {
  const auto experts = static_cast<uint32_t>(load.size());
  std::vector<uint32_t> counts(experts, 1);
  double best = -1.0;
  std::function<void(uint32_t, uint32_t)> visit = [&](uint32_t e, uint32_t left) {
    if (e == experts) {
      if (left != 0) return;
      double worst = 0.0;
      for (uint32_t i = 0; i < experts; ++i) worst = std::max(worst, static_cast<double>(load[i]) / counts[i]);
      if (best < 0 || worst < best) best = worst;
      return;
    }
    for (uint32_t c = 1; c <= ranks && c <= left; ++c) {
      counts[e] = c;
      visit(e + 1, left - c);
    }
  };
  visit(0, ranks * slots);
  return best;
}

// The smallest largest rank load over every valid placement: each rank a set of `slots`
// distinct experts, every expert on some rank, each expert's load split evenly.
double optimal_max_rank_load(const std::vector<int64_t>& load, uint32_t ranks, uint32_t slots) {
  const auto experts = static_cast<uint32_t>(load.size());
  std::vector<std::vector<uint32_t>> sets;  // every `slots`-subset of the experts
  std::vector<uint32_t> set;
  std::function<void(uint32_t)> choose = [&](uint32_t next) {
    if (set.size() == slots) {
      sets.push_back(set);
      return;
    }
    for (uint32_t e = next; e < experts; ++e) {
      set.push_back(e);
      choose(e + 1);
      set.pop_back();
    }
  };
  choose(0);
  std::vector<uint32_t> table;
  double best = -1.0;
  std::function<void(uint32_t)> visit = [&](uint32_t rank) {
    if (rank == ranks) {
      std::vector<uint32_t> counts(experts, 0);
      for (uint32_t e : table) ++counts[e];
      if (std::find(counts.begin(), counts.end(), 0u) != counts.end()) return;
      double worst = 0.0;
      for (uint32_t r = 0; r < ranks; ++r) {
        double rank_load = 0.0;
        for (uint32_t s = 0; s < slots; ++s) {
          const uint32_t e = table[r * slots + s];
          rank_load += static_cast<double>(load[e]) / counts[e];
        }
        worst = std::max(worst, rank_load);
      }
      if (best < 0 || worst < best) best = worst;
      return;
    }
    for (const std::vector<uint32_t>& s : sets) {
      table.insert(table.end(), s.begin(), s.end());
      visit(rank + 1);
      table.resize(table.size() - slots);
    }
  };
  visit(0);
  return best;
}

struct TinyShape {
  uint32_t experts;
  uint32_t ranks;
  uint32_t slots;
};
const TinyShape kTinyShapes[] = {{3, 2, 2}, {4, 3, 2}, {5, 3, 2}, {4, 2, 3}, {5, 2, 3}, {6, 3, 3}, {4, 4, 2}};

// Loads for the enumerations: a few skewed, a few flat, zeros included.
std::vector<std::vector<int64_t>> tiny_loads(uint32_t experts, uint32_t cases) {
  std::mt19937 random(experts * 7919u);
  std::vector<std::vector<int64_t>> loads;
  for (uint32_t c = 0; c < cases; ++c) {
    std::vector<int64_t> load(experts);
    const int64_t spread = c % 3 == 0 ? 3 : 100;
    for (int64_t& l : load) l = std::uniform_int_distribution<int64_t>(0, spread)(random);
    if (c % 4 == 1) load[c % experts] *= 10;  // one hot expert
    loads.push_back(load);
  }
  return loads;
}

TEST(ExpertPlanner, ReplicaCountsMinimiseTheLargestLoadPerReplica) {
  for (const TinyShape& shape : kTinyShapes) {
    for (const std::vector<int64_t>& load : tiny_loads(shape.experts, 40)) {
      const std::vector<uint32_t> counts = replica_counts(load, shape.ranks, shape.slots);
      double worst = 0.0;
      for (size_t e = 0; e < load.size(); ++e) worst = std::max(worst, static_cast<double>(load[e]) / counts[e]);
      EXPECT_DOUBLE_EQ(worst, best_max_per_replica(load, shape.ranks, shape.slots))
          << shape.experts << " experts on " << shape.ranks << " x " << shape.slots;
    }
  }
}

// One slot per rank: each rank serves exactly one replica's share, so the largest rank
// load is the largest load per replica, which the greedy counts minimise.
TEST(ExpertPlanner, OneSlotPerRankIsOptimal) {
  const TinyShape shapes[] = {{3, 5, 1}, {4, 6, 1}, {2, 5, 1}, {5, 5, 1}};
  for (const TinyShape& shape : shapes) {
    for (const std::vector<int64_t>& load : tiny_loads(shape.experts, 40)) {
      EXPECT_DOUBLE_EQ(max_rank_load(plan_placement(load, shape.ranks, shape.slots), load),
                       optimal_max_rank_load(load, shape.ranks, shape.slots))
          << shape.experts << " experts on " << shape.ranks << " ranks";
    }
  }
}

// The largest load per replica under the planner's counts: no placement with those counts
// has a rank below it.
double max_per_replica(const std::vector<int64_t>& load, uint32_t ranks, uint32_t slots) {
  const std::vector<uint32_t> counts = replica_counts(load, ranks, slots);
  double worst = 0.0;
  for (size_t e = 0; e < load.size(); ++e) worst = std::max(worst, static_cast<double>(load[e]) / counts[e]);
  return worst;
}

double mean_rank_load(const std::vector<int64_t>& load, uint32_t ranks) {
  return static_cast<double>(std::accumulate(load.begin(), load.end(), int64_t{0})) / ranks;
}

// With several slots per rank the two greedy steps are not optimal together: the counts
// ignore that every rank takes exactly `slots` replicas, and giving a cold expert the
// extra replica can free a rank for a hot one (loads 2, 2, 0 on 2 x 2: the plan gives
// 3, optimal is 2). Over every case enumerated here the plan stays within 1.5 times the
// optimum and within one replica of the mean (planned <= mean + largest load per
// replica); the worst ratio seen is printed.
constexpr double kPackingBound = 1.5;

TEST(ExpertPlanner, ColdExpertReplicaCanBeatTheGreedyCounts) {
  const std::vector<int64_t> load{2, 2, 0};
  EXPECT_DOUBLE_EQ(max_rank_load(plan_placement(load, 2, 2), load), 3.0);
  EXPECT_DOUBLE_EQ(optimal_max_rank_load(load, 2, 2), 2.0);
}

TEST(ExpertPlanner, SeveralSlotsPerRankStayNearTheOptimum) {
  double worst_ratio = 1.0;
  for (const TinyShape& shape : kTinyShapes) {
    for (const std::vector<int64_t>& load : tiny_loads(shape.experts, 40)) {
      SCOPED_TRACE(::testing::Message() << shape.experts << " experts on " << shape.ranks << " x " << shape.slots
                                        << ", load[0] " << load[0]);
      const double optimum = optimal_max_rank_load(load, shape.ranks, shape.slots);
      const double planned = max_rank_load(plan_placement(load, shape.ranks, shape.slots), load);
      EXPECT_GE(planned, optimum - 1e-9);
      EXPECT_LE(planned, mean_rank_load(load, shape.ranks) + max_per_replica(load, shape.ranks, shape.slots) + 1e-9);
      if (optimum == 0.0) {
        EXPECT_EQ(planned, 0.0);
        continue;
      }
      worst_ratio = std::max(worst_ratio, planned / optimum);
      EXPECT_LE(planned, kPackingBound * optimum + 1e-9);
    }
  }
  std::printf("worst planned / optimal largest rank load: %.4f\n", worst_ratio);
}

TEST(ExpertPlanner, ZipfPlansAreValidAndMoreEvenThanBlocks) {
  for (const uint32_t experts : {16u, 64u, 256u}) {
    for (const uint32_t ranks : {4u, 8u, 16u}) {
      for (const double s : {0.8, 1.0, 1.2}) {
        for (const uint32_t redundant_per_rank : {0u, 1u, 2u}) {
          const std::vector<int64_t> load = zipf_load(experts, s, 100000, experts + ranks);
          const uint32_t slots = experts / ranks + redundant_per_rank;
          if (slots == 1) continue;  // one expert per rank: nothing to balance
          const Placement plan = plan_placement(load, ranks, slots);
          SCOPED_TRACE(::testing::Message() << experts << " experts, " << ranks << " x " << slots << ", s " << s);
          ASSERT_EQ(plan.slot_experts().size(), size_t{ranks} * slots);
          uint32_t placed = 0;
          for (uint32_t e = 0; e < experts; ++e) {
            const auto replicas = plan.replicas(e);
            ASSERT_GE(replicas.size(), 1u);
            for (size_t i = 1; i < replicas.size(); ++i) ASSERT_LT(replicas[i - 1].rank, replicas[i].rank);
            placed += static_cast<uint32_t>(replicas.size());
          }
          EXPECT_EQ(placed, ranks * slots);
          const std::vector<double> planned = plan.rank_loads(load);
          const std::vector<double> blocks = Placement::blocks(experts, ranks).rank_loads(load);
          double total = 0.0;
          for (double l : planned) total += l;
          EXPECT_NEAR(total, static_cast<double>(std::accumulate(load.begin(), load.end(), int64_t{0})), 1e-6);
          EXPECT_LT(imbalance(planned), imbalance(blocks));
          EXPECT_LE(*std::max_element(planned.begin(), planned.end()),
                    mean_rank_load(load, ranks) + max_per_replica(load, ranks, slots) + 1e-6);
        }
      }
    }
  }
}

TEST(ExpertPlanner, SameLoadSamePlan) {
  const std::vector<int64_t> load = zipf_load(64, 1.0, 50000, 5);
  const std::vector<int64_t> copy = load;
  EXPECT_EQ(plan_placement(load, 8, 9), plan_placement(copy, 8, 9));
  // Equal loads: the redundant slots go round-robin from expert 0, one each.
  const std::vector<int64_t> flat(6, 10);
  EXPECT_EQ(replica_counts(flat, 4, 2), (std::vector<uint32_t>{2, 2, 1, 1, 1, 1}));
}

// Expert 0 is heavy; experts 1-4 have two replicas of load 1 each. Largest first: 0 on
// rank 0; 1, 2, 3 on ranks 1 and 2, filling them; the first replica of 4 on rank 0. The
// second replica of 4 finds only rank 0 free, which holds 4 already: it takes rank 1's
// place of expert 1 (its lightest, first slot), and expert 1 moves to rank 0.
TEST(ExpertPlanner, ExchangeKeepsReplicasOnDistinctRanks) {
  const std::vector<int64_t> load{100, 2, 2, 2, 2};
  const std::vector<uint32_t> counts{1, 2, 2, 2, 2};
  const Placement packed = pack_replicas(load, counts, 3, 3);
  EXPECT_EQ(std::vector<uint32_t>(packed.slot_experts().begin(), packed.slot_experts().end()),
            (std::vector<uint32_t>{0, 4, 1, 2, 3, 4, 1, 2, 3}));
}

// Counts the greedy step would not choose (cold experts with many replicas) drive the
// packing into the exchange often; every result must still be a valid placement (which
// refuses one expert twice on a rank) holding each expert as often as asked.
TEST(ExpertPlanner, AnyValidCountsPackOntoDistinctRanks) {
  std::mt19937 random(11);
  const TinyShape shapes[] = {{5, 3, 3}, {6, 4, 3}, {8, 4, 5}, {12, 6, 4}};
  for (const TinyShape& shape : shapes) {
    for (int round = 0; round < 200; ++round) {
      std::vector<uint32_t> counts(shape.experts, 1);
      for (uint32_t extra = shape.ranks * shape.slots - shape.experts; extra > 0;) {
        const uint32_t e = std::uniform_int_distribution<uint32_t>(0, shape.experts - 1)(random);
        if (counts[e] < shape.ranks) ++counts[e], --extra;
      }
      std::vector<int64_t> load(shape.experts);
      for (int64_t& l : load) l = std::uniform_int_distribution<int64_t>(0, 50)(random);
      const Placement packed = pack_replicas(load, counts, shape.ranks, shape.slots);
      for (uint32_t e = 0; e < shape.experts; ++e) ASSERT_EQ(packed.replicas(e).size(), counts[e]);
    }
  }
}

TEST(ExpertPlanner, RefusesBadCountsAndLoadsByName) {
  const std::vector<int64_t> load{5, 5, 5};
  const std::vector<uint32_t> zero{0, 2, 2};
  EXPECT_NE(refusal([&] { pack_replicas(load, zero, 2, 2); }).find("expert 0 has 0 replicas"), std::string::npos);
  const std::vector<uint32_t> too_many{3, 1, 1};
  EXPECT_NE(refusal([&] { pack_replicas(load, too_many, 2, 2); }).find("expert 0 has 3 replicas; each needs 1 to ranks (2)"),
            std::string::npos);
  const std::vector<uint32_t> short_sum{1, 1, 1};
  EXPECT_NE(refusal([&] { pack_replicas(load, short_sum, 2, 2); }).find("3 replicas for 4 slots"), std::string::npos);
  const std::vector<uint32_t> two{2, 2};
  EXPECT_NE(refusal([&] { pack_replicas(load, two, 2, 2); }).find("2 replica counts for 3 experts"), std::string::npos);
  EXPECT_NE(refusal([&] { plan_placement(load, 1, 2); }).find("2 slots cannot hold 3 experts"), std::string::npos);
  const std::vector<int64_t> negative{5, -1, 5};
  EXPECT_NE(refusal([&] { plan_placement(negative, 2, 2); }).find("expert 1 has load -1"), std::string::npos);
}

}  // namespace
