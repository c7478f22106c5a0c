// Placement: validation of the slot table, the per-expert replica lists derived from it,
// the token -> replica rule and the per-rank load model (see placement.hpp).
#include "dopant/expert_balance/placement.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <string>

#include "expert_load.hpp"

namespace dopant::expert_balance {

using std::to_string;

void check_shape(uint32_t experts, uint32_t ranks, uint32_t slots_per_rank) {
  sdk::require(experts > 0, "expert placement: experts is 0; at least one expert is needed");
  sdk::require(ranks > 0, "expert placement: ranks is 0; at least one rank is needed");
  sdk::require(slots_per_rank > 0, "expert placement: slots_per_rank is 0; each rank needs a slot");
  const uint64_t slots = uint64_t{ranks} * slots_per_rank;
  sdk::require(slots >= experts, "expert placement: " + to_string(ranks) + " ranks x " + to_string(slots_per_rank) +
                                     " slots = " + to_string(slots) + " slots cannot hold " + to_string(experts) +
                                     " experts");
  sdk::require(slots_per_rank <= experts, "expert placement: slots_per_rank " + to_string(slots_per_rank) +
                                              " exceeds experts " + to_string(experts) +
                                              ": a rank would hold some expert twice");
}

Placement::Placement(uint32_t experts, uint32_t ranks, uint32_t slots_per_rank, std::vector<uint32_t> slot_experts)
    : experts_(experts), ranks_(ranks), slots_per_rank_(slots_per_rank), slot_experts_(std::move(slot_experts)) {
  check_shape(experts, ranks, slots_per_rank);
  const size_t slots = size_t{ranks} * slots_per_rank;
  sdk::require(slot_experts_.size() == slots, "expert placement: slot_experts has " +
                                                  to_string(slot_experts_.size()) + " entries, ranks x slots_per_rank = " +
                                                  to_string(slots));
  // Count each expert's replicas, refusing ids out of range and repeats within a rank.
  replica_offsets_.assign(size_t{experts} + 1, 0);
  std::vector<uint32_t> last_rank_of(experts, ranks);  // `ranks`: not seen yet
  std::vector<uint32_t> last_slot_of(experts, 0);
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    for (uint32_t slot = 0; slot < slots_per_rank; ++slot) {
      const uint32_t expert = slot_experts_[size_t{rank} * slots_per_rank + slot];
      sdk::require(expert < experts, "expert placement: slot " + to_string(slot) + " of rank " + to_string(rank) +
                                         " holds expert " + to_string(expert) + ", experts are [0, " +
                                         to_string(experts) + ")");
      sdk::require(last_rank_of[expert] != rank,
                   "expert placement: rank " + to_string(rank) + " holds expert " + to_string(expert) + " in slots " +
                       to_string(last_slot_of[expert]) + " and " + to_string(slot));
      last_rank_of[expert] = rank;
      last_slot_of[expert] = slot;
      ++replica_offsets_[expert + 1];
    }
  }
  for (uint32_t expert = 0; expert < experts; ++expert) {
    sdk::require(replica_offsets_[expert + 1] > 0, "expert placement: expert " + to_string(expert) + " has no slot");
    replica_offsets_[expert + 1] += replica_offsets_[expert];
  }
  // Fill each expert's list in rank-major slot order, which is ascending rank.
  replicas_.resize(slots);
  std::vector<uint32_t> next(replica_offsets_.begin(), replica_offsets_.end() - 1);
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    for (uint32_t slot = 0; slot < slots_per_rank; ++slot) {
      replicas_[next[slot_experts_[size_t{rank} * slots_per_rank + slot]]++] = Replica{rank, slot};
    }
  }
}

Placement Placement::blocks(uint32_t experts, uint32_t ranks) {
  sdk::require(ranks > 0 && experts % ranks == 0, "expert placement: blocks need experts (" + to_string(experts) +
                                                      ") to be a multiple of ranks (" + to_string(ranks) + ")");
  std::vector<uint32_t> slot_experts(experts);
  for (uint32_t e = 0; e < experts; ++e) slot_experts[e] = e;
  return Placement(experts, ranks, experts / ranks, std::move(slot_experts));
}

uint32_t Placement::expert_at(uint32_t rank, uint32_t slot) const {
  sdk::require(rank < ranks_ && slot < slots_per_rank_, "expert placement: no slot " + to_string(slot) +
                                                            " of rank " + to_string(rank) + " in " + to_string(ranks_) +
                                                            " ranks x " + to_string(slots_per_rank_) + " slots");
  return slot_experts_[size_t{rank} * slots_per_rank_ + slot];
}

std::span<const Replica> Placement::replicas(uint32_t expert) const {
  sdk::require(expert < experts_, "expert placement: expert " + to_string(expert) + " of " + to_string(experts_));
  return std::span<const Replica>(replicas_).subspan(replica_offsets_[expert],
                                                      replica_offsets_[expert + 1] - replica_offsets_[expert]);
}

TopologyArrays Placement::topology_arrays() const {
  TopologyArrays arrays{replica_offsets_, {}};
  arrays.ranks.reserve(replicas_.size());
  for (const Replica& replica : replicas_) arrays.ranks.push_back(replica.rank);
  return arrays;
}

std::vector<double> Placement::rank_loads(std::span<const int64_t> expert_load) const {
  check_expert_load(expert_load, experts_, "rank loads");
  std::vector<double> loads(ranks_, 0.0);
  for (uint32_t expert = 0; expert < experts_; ++expert) {
    const uint32_t count = replica_offsets_[expert + 1] - replica_offsets_[expert];
    const double share = static_cast<double>(expert_load[expert]) / count;  // load / replicas
    for (const Replica& replica : replicas(expert)) loads[replica.rank] += share;
  }
  return loads;
}

double imbalance(std::span<const double> rank_loads) {
  sdk::require(!rank_loads.empty(), "imbalance: no ranks");
  double total = 0.0;
  double most = 0.0;
  for (double load : rank_loads) {
    total += load;
    most = std::max(most, load);
  }
  if (total == 0.0) return 1.0;
  return most / (total / static_cast<double>(rank_loads.size()));  // max / mean
}

}  // namespace dopant::expert_balance
