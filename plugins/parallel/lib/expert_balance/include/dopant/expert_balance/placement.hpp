// Where the experts of one MoE layer live under expert parallelism: `experts` logical
// experts on `ranks` ranks of `slots_per_rank` physical slots each. Every slot holds one
// logical expert; with slots_per_rank * ranks > experts the extra slots hold redundant
// replicas of some experts. A placement is valid when every expert has at least one
// replica and no rank holds two replicas of one expert (so slots_per_rank <= experts).
//
// Which replica serves a token is the strategies' rule (Placement::serving_rank of
// dopant_moe_exchange: the token's own rank first, else by token index modulo). When every
// rank routes from the same popularity it gives each replica the expert's tokens /
// replicas in expectation (docs/parallelism.md); rank_loads() models that even split.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dopant::expert_balance {

// One physical copy of a logical expert.
struct Replica {
  uint32_t rank;
  uint32_t slot;
  bool operator==(const Replica&) const = default;
};

// The expert -> ranks placement as the parallel kind's topology carries it: expert e's
// replicas are on ranks[offsets[e] .. offsets[e + 1]), ascending and distinct.
struct TopologyArrays {
  std::vector<uint32_t> offsets;  // [experts + 1], offsets[0] = 0
  std::vector<uint32_t> ranks;    // [offsets[experts]]
};

// Refuses (sdk::Error, DPT_INVALID_ARGUMENT, naming the argument) zero experts, ranks or
// slots, slots_per_rank * ranks < experts and slots_per_rank > experts.
void check_shape(uint32_t experts, uint32_t ranks, uint32_t slots_per_rank);

class Placement {
 public:
  // `slot_experts` [ranks * slots_per_rank]: the logical expert in each slot, rank-major
  // (slot s of rank r at r * slots_per_rank + s). Refuses, naming the slot or expert, a
  // bad shape (check_shape), a wrong length, an expert id >= experts, an expert with no
  // slot and a rank holding one expert twice.
  Placement(uint32_t experts, uint32_t ranks, uint32_t slots_per_rank, std::vector<uint32_t> slot_experts);

  // The layout without balancing: one replica each, in contiguous blocks (expert e on rank
  // e / (experts / ranks)); experts must be a multiple of ranks.
  static Placement blocks(uint32_t experts, uint32_t ranks);

  uint32_t experts() const { return experts_; }
  uint32_t ranks() const { return ranks_; }
  uint32_t slots_per_rank() const { return slots_per_rank_; }
  uint32_t expert_at(uint32_t rank, uint32_t slot) const;
  // [ranks * slots_per_rank], rank-major.
  std::span<const uint32_t> slot_experts() const { return slot_experts_; }
  // The replicas of `expert`, in ascending rank.
  std::span<const Replica> replicas(uint32_t expert) const;
  TopologyArrays topology_arrays() const;

  // Tokens each rank serves when expert e receives expert_load[e] tokens ([experts], each
  // >= 0) split evenly over its replicas: rank r gets sum over its slots of load / replicas.
  std::vector<double> rank_loads(std::span<const int64_t> expert_load) const;

  bool operator==(const Placement&) const = default;

 private:
  uint32_t experts_;
  uint32_t ranks_;
  uint32_t slots_per_rank_;
  std::vector<uint32_t> slot_experts_;         // [ranks * slots_per_rank]
  std::vector<uint32_t> replica_offsets_;      // [experts + 1] into replicas_
  std::vector<Replica> replicas_;              // grouped by expert, ascending rank
};

// max / mean of per-rank loads: 1 is perfectly even; 1 when every load is 0.
double imbalance(std::span<const double> rank_loads);

}  // namespace dopant::expert_balance
