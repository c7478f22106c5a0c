// Node-aware planning of dopant_expert_balance: a case worked by hand, each group and all
// its replicas on one node, the flat planner's result when there is one node and one group,
// and refusals of layouts that do not divide.
#include <dopant/expert_balance/node_planner.hpp>
#include <dopant/expert_balance/planner.hpp>

#include <gtest/gtest.h>

#include "balance_test_support.hpp"

namespace {

using dopant::balance_tests::refusal;
using dopant::balance_tests::zipf_load;
using dopant::expert_balance::imbalance;
using dopant::expert_balance::NodeLayout;
using dopant::expert_balance::Placement;
using dopant::expert_balance::plan_placement;
using dopant::expert_balance::plan_placement_by_node;

// 8 experts in 4 groups of 2 with group loads 20, 2, 10, 6, on 2 nodes of 2 ranks x 2
// slots. Heaviest group first onto the lighter node with room: group 0 on node 0, group 2
// on node 1, group 3 on node 1 (10 < 20), group 1 on node 0 (node 1 is full). Within node
// 0 experts 0 and 1 (10 each) take a rank each and 2, 3 follow; node 1 likewise with 4, 5
// then 6, 7.
TEST(ExpertNodePlanner, WorkedExample) {
  const std::vector<int64_t> load{10, 10, 1, 1, 5, 5, 3, 3};
  const Placement plan = plan_placement_by_node(load, 4, 2, NodeLayout{2, 4});
  EXPECT_EQ(std::vector<uint32_t>(plan.slot_experts().begin(), plan.slot_experts().end()),
            (std::vector<uint32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(ExpertNodePlanner, GroupsAndTheirReplicasStayOnOneNode) {
  for (const double s : {0.8, 1.2}) {
    const uint32_t experts = 64, ranks = 16, per_node = 4, groups = 8, slots = 5;
    const std::vector<int64_t> load = zipf_load(experts, s, 100000, 21);
    const Placement plan = plan_placement_by_node(load, ranks, slots, NodeLayout{per_node, groups});
    std::vector<uint32_t> groups_on_node(ranks / per_node, 0);
    for (uint32_t g = 0; g < groups; ++g) {
      const uint32_t node = plan.replicas(g * 8)[0].rank / per_node;
      ++groups_on_node[node];
      for (uint32_t e = g * 8; e < (g + 1) * 8; ++e) {
        for (const auto& replica : plan.replicas(e)) EXPECT_EQ(replica.rank / per_node, node) << "expert " << e;
      }
    }
    EXPECT_EQ(groups_on_node, (std::vector<uint32_t>(4, 2)));
    EXPECT_LT(imbalance(plan.rank_loads(load)), imbalance(Placement::blocks(experts, ranks).rank_loads(load)));
  }
}

TEST(ExpertNodePlanner, OneNodeOneGroupIsTheFlatPlan) {
  const std::vector<int64_t> load = zipf_load(48, 1.0, 20000, 8);
  EXPECT_EQ(plan_placement_by_node(load, 8, 7, NodeLayout{8, 1}), plan_placement(load, 8, 7));
}

TEST(ExpertNodePlanner, RefusesLayoutsThatDoNotDivide) {
  const std::vector<int64_t> load(8, 1);
  EXPECT_NE(refusal([&] { plan_placement_by_node(load, 4, 2, NodeLayout{3, 4}); })
                .find("ranks_per_node 3 does not divide ranks 4"),
            std::string::npos);
  EXPECT_NE(refusal([&] { plan_placement_by_node(load, 4, 2, NodeLayout{2, 3}); }).find("groups 3 does not divide experts 8"),
            std::string::npos);
  EXPECT_NE(refusal([&] { plan_placement_by_node(load, 4, 2, NodeLayout{1, 2}); }).find("4 nodes do not divide groups 2"),
            std::string::npos);
  EXPECT_NE(refusal([&] { plan_placement_by_node(load, 4, 5, NodeLayout{2, 4}); })
                .find("a node holds 4 experts in 2 ranks x 5 slots"),
            std::string::npos);
}

}  // namespace
