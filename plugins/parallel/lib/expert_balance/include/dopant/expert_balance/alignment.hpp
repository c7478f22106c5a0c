// Moving from one placement to another costs a copy of an expert's weights into every slot
// whose expert changes. Ranks of a placement are interchangeable for load (each serves the
// sum of its slots' shares), and so are the slots of one rank, so a proposed placement can
// be renamed to keep as many slots as possible where the current one has them.
#pragma once

#include <cstdint>

#include "dopant/expert_balance/placement.hpp"

namespace dopant::expert_balance {

// Slots (rank, slot) whose expert differs between `from` and `to`: the weight copies the
// move needs. Refuses placements of different shapes.
uint32_t moved_slots(const Placement& from, const Placement& to);

// `proposed` with its ranks and, within each rank, its slots renamed to match `current`:
// every rank keeps its set of experts, so the per-rank loads are those of `proposed` in
// another order. Ranks are paired greedily by the number of experts they share (most
// first; ties: lower proposed rank, then lower current rank); within a pair, an expert
// the current rank holds keeps its slot and the others fill the free slots in ascending
// order. Refuses placements of different shapes.
Placement align_to(const Placement& current, const Placement& proposed);

}  // namespace dopant::expert_balance
