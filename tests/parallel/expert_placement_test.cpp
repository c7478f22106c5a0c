// The placement type of dopant_expert_balance: the replica lists and topology arrays read
// from a slot table worked by hand, the per-rank load model, and every refusal naming what
// is wrong.
#include <dopant/expert_balance/placement.hpp>

#include <gtest/gtest.h>

#include "balance_test_support.hpp"

namespace {

using dopant::balance_tests::refusal;
using dopant::expert_balance::imbalance;
using dopant::expert_balance::Placement;
using dopant::expert_balance::Replica;

// 3 experts on 2 ranks x 2 slots: rank 0 holds experts 0 and 1, rank 1 holds 2 and 0.
Placement worked_example() { return Placement(3, 2, 2, {0, 1, 2, 0}); }

TEST(ExpertPlacement, ReplicasAndTopologyArraysFollowTheSlotTable) {
  const Placement placement = worked_example();
  EXPECT_EQ(placement.expert_at(1, 0), 2u);
  const std::vector<Replica> zero(placement.replicas(0).begin(), placement.replicas(0).end());
  EXPECT_EQ(zero, (std::vector<Replica>{{0, 0}, {1, 1}}));
  const std::vector<Replica> two(placement.replicas(2).begin(), placement.replicas(2).end());
  EXPECT_EQ(two, (std::vector<Replica>{{1, 0}}));
  const auto arrays = placement.topology_arrays();
  EXPECT_EQ(arrays.offsets, (std::vector<uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(arrays.ranks, (std::vector<uint32_t>{0, 1, 0, 1}));
}

TEST(ExpertPlacement, BlocksPutContiguousExpertsOnEachRank) {
  const Placement placement = Placement::blocks(8, 4);
  EXPECT_EQ(placement.slots_per_rank(), 2u);
  for (uint32_t e = 0; e < 8; ++e) {
    ASSERT_EQ(placement.replicas(e).size(), 1u);
    EXPECT_EQ(placement.replicas(e)[0], (Replica{e / 2, e % 2}));
  }
}

// Expert 0's 6 load splits 3 + 3 over its replicas: rank 0 serves 3 + 3 (expert 1), rank
// 1 serves 4 (expert 2) + 3.
TEST(ExpertPlacement, RankLoadsSplitEachExpertEvenlyOverItsReplicas) {
  const std::vector<int64_t> load{6, 3, 4};
  EXPECT_EQ(worked_example().rank_loads(load), (std::vector<double>{6.0, 7.0}));
  const std::vector<double> loads{1.0, 3.0};
  EXPECT_DOUBLE_EQ(imbalance(loads), 1.5);  // max 3 / mean 2
  const std::vector<double> idle{0.0, 0.0};
  EXPECT_DOUBLE_EQ(imbalance(idle), 1.0);
}

TEST(ExpertPlacement, RefusesBadShapesNamingTheArgument) {
  EXPECT_NE(refusal([] { Placement(0, 2, 2, {}); }).find("experts is 0"), std::string::npos);
  EXPECT_NE(refusal([] { Placement(3, 0, 2, {}); }).find("ranks is 0"), std::string::npos);
  EXPECT_NE(refusal([] { Placement(3, 2, 0, {}); }).find("slots_per_rank is 0"), std::string::npos);
  EXPECT_NE(refusal([] { Placement(7, 3, 2, {0, 1, 2, 3, 4, 5}); })
                .find("3 ranks x 2 slots = 6 slots cannot hold 7 experts"),
            std::string::npos);
  EXPECT_NE(refusal([] { Placement(2, 1, 3, {0, 1, 0}); }).find("slots_per_rank 3 exceeds experts 2"),
            std::string::npos);
  EXPECT_NE(refusal([] { Placement::blocks(6, 4); }).find("experts (6) to be a multiple of ranks (4)"),
            std::string::npos);
}

TEST(ExpertPlacement, RefusesBadSlotTablesNamingTheSlot) {
  EXPECT_NE(refusal([] { Placement(3, 2, 2, {0, 1, 2}); }).find("slot_experts has 3 entries, ranks x slots_per_rank = 4"),
            std::string::npos);
  EXPECT_NE(refusal([] { Placement(3, 2, 2, {0, 1, 2, 9}); })
                .find("slot 1 of rank 1 holds expert 9, experts are [0, 3)"),
            std::string::npos);
  EXPECT_NE(refusal([] { Placement(3, 2, 2, {0, 1, 0, 1}); }).find("expert 2 has no slot"), std::string::npos);
  EXPECT_NE(refusal([] { Placement(3, 2, 2, {0, 1, 2, 2}); }).find("rank 1 holds expert 2 in slots 0 and 1"),
            std::string::npos);
}

TEST(ExpertPlacement, RefusesLoadsOfTheWrongLengthOrSign) {
  const Placement placement = worked_example();
  const std::vector<int64_t> short_load{1, 2};
  EXPECT_NE(refusal([&] { placement.rank_loads(short_load); }).find("rank loads: 2 entries for 3 experts"),
            std::string::npos);
  const std::vector<int64_t> negative{1, -2, 3};
  EXPECT_NE(refusal([&] { placement.rank_loads(negative); }).find("expert 1 has load -2"), std::string::npos);
  EXPECT_NE(refusal([&] { placement.replicas(3); }).find("expert 3 of 3"), std::string::npos);
}

}  // namespace
