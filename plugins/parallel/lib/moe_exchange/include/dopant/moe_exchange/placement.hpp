// Where experts live: the topology's expert -> ranks placement (with redundant replicas of
// hot experts), each rank's expert slots, and the one rule every strategy uses to pick the
// replica a token's expert is served by.
#pragma once

#include <dopant/parallel.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dopant::moe_exchange {

// FNV-1a 64 of `bytes` bytes, continuing from `hash`: how setup compares what ranks hold.
inline constexpr uint64_t kFnvBasis = 1469598103934665603ull;
uint64_t fnv1a(const void* data, size_t bytes, uint64_t hash = kFnvBasis);

class Placement {
 public:
  // Expert e on rank e * ranks / experts: contiguous blocks, one replica each.
  static Placement contiguous(uint32_t experts, uint32_t ranks);
  // The topology's placement (contiguous when it gives none), checked: every expert has at
  // least one replica, on distinct ranks below `ranks`. Throws DPT_INVALID_ARGUMENT naming
  // the expert at fault.
  static Placement of_topology(const dpt_parallel_topology& topology, uint32_t ranks);

  uint32_t experts() const { return static_cast<uint32_t>(replicas_.size()); }
  const std::vector<uint32_t>& replicas(uint32_t expert) const { return replicas_[expert]; }
  // The experts with a replica on `rank`, ascending: that rank's slots.
  std::vector<int32_t> slots_of(uint32_t rank) const;

  // The rank that serves `expert` for token `token` of `source` rank:
  //   1. the replica on the source rank itself, if any (no traffic);
  //   2. else a replica on the source's node (rank / ranks_per_node; 0: one node), the
  //      token's index modulo their count picking one;
  //   3. else any replica, the token's index modulo the replica count picking one.
  // Spreading by token index sends consecutive tokens of a hot expert to its replicas in
  // turn, so replicas share the load evenly without any exchange of counts.
  uint32_t serving_rank(uint32_t expert, uint32_t source, uint64_t token, uint32_t ranks_per_node) const;

  // fnv1a over every expert's replica count and ranks, for comparing it between ranks.
  uint64_t fingerprint() const;

 private:
  explicit Placement(std::vector<std::vector<uint32_t>> replicas) : replicas_(std::move(replicas)) {}
  std::vector<std::vector<uint32_t>> replicas_;
};

}  // namespace dopant::moe_exchange
