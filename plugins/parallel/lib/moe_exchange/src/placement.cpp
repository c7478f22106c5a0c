// Placement: checking the topology's expert -> ranks table and choosing a replica.
#include "dopant/moe_exchange/placement.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <string>

namespace dopant::moe_exchange {

Placement Placement::contiguous(uint32_t experts, uint32_t ranks) {
  std::vector<std::vector<uint32_t>> replicas(experts);
  for (uint32_t e = 0; e < experts; ++e) {
    replicas[e] = {static_cast<uint32_t>(uint64_t{e} * ranks / experts)};
  }
  return Placement(std::move(replicas));
}

Placement Placement::of_topology(const dpt_parallel_topology& topology, uint32_t ranks) {
  const uint32_t experts = topology.num_experts;
  if ((topology.placement_offsets == nullptr) != (topology.placement_ranks == nullptr)) {
    sdk::fail(DPT_INVALID_ARGUMENT, "topology: placement_offsets and placement_ranks must be given together");
  }
  if (topology.placement_offsets == nullptr) return contiguous(experts, ranks);
  const uint32_t* offsets = topology.placement_offsets;
  if (offsets[0] != 0) sdk::fail(DPT_INVALID_ARGUMENT, "topology: placement_offsets[0] must be 0");
  std::vector<std::vector<uint32_t>> replicas(experts);
  for (uint32_t e = 0; e < experts; ++e) {
    const std::string expert = "topology: expert " + std::to_string(e);
    if (offsets[e + 1] <= offsets[e]) sdk::fail(DPT_INVALID_ARGUMENT, expert + " has no replica");
    for (uint32_t i = offsets[e]; i < offsets[e + 1]; ++i) {
      const uint32_t rank = topology.placement_ranks[i];
      if (rank >= ranks) {
        sdk::fail(DPT_INVALID_ARGUMENT, expert + " is placed on rank " + std::to_string(rank) + " of " +
                                            std::to_string(ranks));
      }
      if (std::find(replicas[e].begin(), replicas[e].end(), rank) != replicas[e].end()) {
        sdk::fail(DPT_INVALID_ARGUMENT, expert + " has two replicas on rank " + std::to_string(rank));
      }
      replicas[e].push_back(rank);
    }
  }
  return Placement(std::move(replicas));
}

std::vector<int32_t> Placement::slots_of(uint32_t rank) const {
  std::vector<int32_t> slots;
  for (uint32_t e = 0; e < experts(); ++e) {
    if (std::find(replicas_[e].begin(), replicas_[e].end(), rank) != replicas_[e].end()) {
      slots.push_back(static_cast<int32_t>(e));
    }
  }
  return slots;
}

uint32_t Placement::serving_rank(uint32_t expert, uint32_t source, uint64_t token, uint32_t ranks_per_node) const {
  const std::vector<uint32_t>& all = replicas_[expert];
  if (all.size() == 1) return all[0];
  if (std::find(all.begin(), all.end(), source) != all.end()) return source;
  if (ranks_per_node != 0) {
    const uint32_t node = source / ranks_per_node;
    auto on_node = [&](uint32_t rank) { return rank / ranks_per_node == node; };
    const auto near = static_cast<uint64_t>(std::count_if(all.begin(), all.end(), on_node));
    if (near != 0) {
      uint64_t skip = token % near;  // the (token mod near)-th replica on the node
      for (uint32_t rank : all) {
        if (on_node(rank) && skip-- == 0) return rank;
      }
    }
  }
  return all[token % all.size()];
}

uint64_t fnv1a(const void* data, size_t bytes, uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;  // the FNV prime
  return hash;
}

uint64_t Placement::fingerprint() const {
  uint64_t hash = kFnvBasis;
  for (const std::vector<uint32_t>& ranks : replicas_) {
    const uint64_t count = ranks.size();
    hash = fnv1a(&count, sizeof count, hash);
    hash = fnv1a(ranks.data(), ranks.size() * sizeof(uint32_t), hash);
  }
  return hash;
}

}  // namespace dopant::moe_exchange
