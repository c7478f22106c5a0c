// Node-aware planning: groups packed onto nodes, then each node planned on its own ranks
// (see node_planner.hpp).
#include "dopant/expert_balance/node_planner.hpp"

#include <dopant/sdk/errors.hpp>

#include <string>
#include <vector>

#include "dopant/expert_balance/planner.hpp"
#include "expert_load.hpp"

namespace dopant::expert_balance {

using std::to_string;

Placement plan_placement_by_node(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank,
                                 NodeLayout layout) {
  const auto experts = static_cast<uint32_t>(expert_load.size());
  check_shape(experts, ranks, slots_per_rank);
  check_expert_load(expert_load, experts, "node plan");
  sdk::require(layout.ranks_per_node > 0 && ranks % layout.ranks_per_node == 0,
               "node plan: ranks_per_node " + to_string(layout.ranks_per_node) + " does not divide ranks " +
                   to_string(ranks));
  sdk::require(layout.groups > 0 && experts % layout.groups == 0,
               "node plan: groups " + to_string(layout.groups) + " does not divide experts " + to_string(experts));
  const uint32_t nodes = ranks / layout.ranks_per_node;
  sdk::require(layout.groups % nodes == 0, "node plan: " + to_string(nodes) + " nodes do not divide groups " +
                                               to_string(layout.groups));
  const uint32_t group_size = experts / layout.groups;
  const uint32_t node_experts = experts / nodes;
  sdk::require(slots_per_rank <= node_experts && uint64_t{layout.ranks_per_node} * slots_per_rank >= node_experts,
               "node plan: a node holds " + to_string(node_experts) + " experts in " +
                   to_string(layout.ranks_per_node) + " ranks x " + to_string(slots_per_rank) +
                   " slots; it needs at least as many slots and no more slots per rank than experts");

  // 1. Groups onto nodes: each group one item of its summed load.
  std::vector<int64_t> group_load(layout.groups, 0);
  for (uint32_t e = 0; e < experts; ++e) group_load[e / group_size] += expert_load[e];
  const std::vector<uint32_t> once(layout.groups, 1);
  const Placement groups_on_nodes = pack_replicas(group_load, once, nodes, layout.groups / nodes);

  // 2. Each node's experts, ascending, planned on its ranks and written into the table.
  std::vector<uint32_t> table(size_t{ranks} * slots_per_rank);
  for (uint32_t node = 0; node < nodes; ++node) {
    std::vector<uint32_t> members;  // global ids of the node's experts, ascending
    members.reserve(node_experts);
    for (uint32_t g = 0; g < layout.groups; ++g) {
      if (groups_on_nodes.replicas(g)[0].rank != node) continue;
      for (uint32_t e = g * group_size; e < (g + 1) * group_size; ++e) members.push_back(e);
    }
    std::vector<int64_t> local_load;
    local_load.reserve(members.size());
    for (uint32_t e : members) local_load.push_back(expert_load[e]);
    const Placement local = plan_placement(local_load, layout.ranks_per_node, slots_per_rank);
    for (uint32_t r = 0; r < layout.ranks_per_node; ++r) {
      for (uint32_t s = 0; s < slots_per_rank; ++s) {
        table[(size_t{node} * layout.ranks_per_node + r) * slots_per_rank + s] = members[local.expert_at(r, s)];
      }
    }
  }
  return Placement(experts, ranks, slots_per_rank, std::move(table));
}

}  // namespace dopant::expert_balance
