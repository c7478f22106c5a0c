// Node-aware planning, for ranks spread over nodes whose links between nodes are slower
// than within: experts come in `groups` of consecutive ids (the expert groups of
// group-limited routing, e.g. DeepSeek-V3's 8 groups of 32), and each group, with all of
// its replicas, stays on one node, so a token sent to a group crosses to one node only.
// Ranks [n * ranks_per_node, (n + 1) * ranks_per_node) form node n.
//
//   1. Groups go to nodes, groups / nodes each, by the planner's packing (planner.hpp) with
//      the groups' summed loads: heaviest group first onto the least-loaded node with room
//      (ties: fewer groups held, then the lower node; equal loads keep group order).
//   2. Within each node, the planner's two steps place the node's experts (ascending id)
//      on the node's ranks, with the node's redundant slots.
//
// The price: redundant slots cannot follow load across nodes, so the result is at best as
// even as plan_placement's. With one node and one group it is plan_placement's.
#pragma once

#include <cstdint>
#include <span>

#include "dopant/expert_balance/placement.hpp"

namespace dopant::expert_balance {

struct NodeLayout {
  uint32_t ranks_per_node = 1;  // divides the ranks
  uint32_t groups = 1;          // divides the experts; nodes divide the groups
};

// Refuses, naming the field, a layout that does not divide as above, and slots that do
// not fit a node's experts (experts / nodes <= ranks_per_node * slots_per_rank, and
// slots_per_rank <= experts / nodes).
Placement plan_placement_by_node(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank,
                                 NodeLayout layout);

}  // namespace dopant::expert_balance
