// The planner: from the observed load of each logical expert (token counts, e.g. the router
// kind's per-expert load output summed over steps), a placement whose ranks serve about the
// same number of tokens. Two greedy steps, after the approach of DeepSeek's public EPLB:
//
// 1. Replica counts. Every expert starts with one replica; each of the
//    ranks * slots_per_rank - experts redundant slots in turn goes to the expert whose load
//    per replica (load / replicas) is the highest at that moment. This minimises the largest
//    load per replica over all counts with the same total. An expert never gets more
//    replicas than there are ranks. Ties: fewer replicas first (so equal loads, zero
//    included, spread the extras round-robin), then the lower expert id.
// 2. Packing. Every replica carries load / replicas of its expert. Replicas are taken
//    heaviest first (ties: lower expert id) and each goes to the least-loaded rank that has
//    a free slot and no replica of the same expert (ties: fewer filled slots, then the
//    lower rank). Should every rank with a free slot already hold that expert, the
//    replica goes to the least-loaded rank q without it, and q's lightest replica whose
//    expert the least-loaded rank with a free slot lacks moves there (ties: lower slot).
//    So no rank ever holds one expert twice.
//
// Everything is deterministic: the same load gives the same placement. Loads per replica
// are compared as doubles (a correctly rounded division, so equal ratios compare equal).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dopant/expert_balance/placement.hpp"

namespace dopant::expert_balance {

// Step 1: replicas per expert ([experts] from expert_load's length), summing to
// ranks * slots_per_rank. Refuses a bad shape (check_shape) or load (negative entry).
std::vector<uint32_t> replica_counts(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank);

// Step 2 for given counts ([experts], each in [1, ranks], summing to
// ranks * slots_per_rank; refused by name otherwise).
Placement pack_replicas(std::span<const int64_t> expert_load, std::span<const uint32_t> replica_counts, uint32_t ranks,
                        uint32_t slots_per_rank);

// Both steps.
Placement plan_placement(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank);

}  // namespace dopant::expert_balance
