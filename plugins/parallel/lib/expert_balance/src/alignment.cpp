// Renaming a proposed placement's ranks and slots to move as few experts as possible from
// the current one (see alignment.hpp).
#include "dopant/expert_balance/alignment.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <string>

namespace dopant::expert_balance {

namespace {

void check_same_shape(const Placement& a, const Placement& b, const char* what) {
  sdk::require(a.experts() == b.experts() && a.ranks() == b.ranks() && a.slots_per_rank() == b.slots_per_rank(),
               std::string(what) + ": placements differ in shape (" + std::to_string(a.experts()) + " experts, " +
                   std::to_string(a.ranks()) + " x " + std::to_string(a.slots_per_rank()) + " slots against " +
                   std::to_string(b.experts()) + ", " + std::to_string(b.ranks()) + " x " +
                   std::to_string(b.slots_per_rank()) + ")");
}

}  // namespace

uint32_t moved_slots(const Placement& from, const Placement& to) {
  check_same_shape(from, to, "moved slots");
  uint32_t moved = 0;
  for (size_t i = 0; i < from.slot_experts().size(); ++i) moved += from.slot_experts()[i] != to.slot_experts()[i];
  return moved;
}

Placement align_to(const Placement& current, const Placement& proposed) {
  check_same_shape(current, proposed, "align placements");
  const uint32_t ranks = current.ranks();
  const uint32_t slots = current.slots_per_rank();
  const uint32_t experts = current.experts();
  // slot_in_current[r * experts + e]: the slot of expert e on current rank r, or `slots`.
  std::vector<uint32_t> slot_in_current(size_t{ranks} * experts, slots);
  for (uint32_t r = 0; r < ranks; ++r) {
    for (uint32_t s = 0; s < slots; ++s) slot_in_current[size_t{r} * experts + current.expert_at(r, s)] = s;
  }
  struct Pair {
    uint32_t shared;
    uint32_t proposed_rank;
    uint32_t current_rank;
  };
  std::vector<Pair> pairs;
  pairs.reserve(size_t{ranks} * ranks);
  for (uint32_t p = 0; p < ranks; ++p) {
    for (uint32_t c = 0; c < ranks; ++c) {
      uint32_t shared = 0;
      for (uint32_t s = 0; s < slots; ++s) shared += slot_in_current[size_t{c} * experts + proposed.expert_at(p, s)] < slots;
      pairs.push_back({shared, p, c});
    }
  }
  // Most shared first; pairs were made in (proposed, current) order, kept on ties.
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.shared > b.shared; });
  std::vector<bool> proposed_taken(ranks, false);
  std::vector<bool> current_taken(ranks, false);
  std::vector<uint32_t> slot_experts(size_t{ranks} * slots);
  for (const Pair& pair : pairs) {
    if (proposed_taken[pair.proposed_rank] || current_taken[pair.current_rank]) continue;
    proposed_taken[pair.proposed_rank] = current_taken[pair.current_rank] = true;
    uint32_t* row = &slot_experts[size_t{pair.current_rank} * slots];
    std::vector<bool> filled(slots, false);
    std::vector<uint32_t> newcomers;
    for (uint32_t s = 0; s < slots; ++s) {
      const uint32_t expert = proposed.expert_at(pair.proposed_rank, s);
      const uint32_t kept = slot_in_current[size_t{pair.current_rank} * experts + expert];
      if (kept < slots) {
        row[kept] = expert;
        filled[kept] = true;
      } else {
        newcomers.push_back(expert);
      }
    }
    size_t next = 0;
    for (uint32_t s = 0; s < slots; ++s) {
      if (!filled[s]) row[s] = newcomers[next++];
    }
  }
  return Placement(experts, ranks, slots, std::move(slot_experts));
}

}  // namespace dopant::expert_balance
