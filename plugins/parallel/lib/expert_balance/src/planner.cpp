// The planner's two greedy steps, replica counts and packing (see planner.hpp).
#include "dopant/expert_balance/planner.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <queue>
#include <string>

#include "expert_load.hpp"

namespace dopant::expert_balance {

using std::to_string;

std::vector<uint32_t> replica_counts(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank) {
  const auto experts = static_cast<uint32_t>(expert_load.size());
  check_shape(experts, ranks, slots_per_rank);
  check_expert_load(expert_load, experts, "replica counts");
  std::vector<uint32_t> counts(experts, 1);
  // Candidate for the next redundant slot; `top` is the one with the highest load per
  // replica, then fewer replicas, then the lower id.
  struct Candidate {
    double per_replica;
    uint32_t replicas;
    uint32_t expert;
  };
  const auto after = [](const Candidate& a, const Candidate& b) {
    if (a.per_replica != b.per_replica) return a.per_replica < b.per_replica;
    if (a.replicas != b.replicas) return a.replicas > b.replicas;
    return a.expert > b.expert;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  for (uint32_t e = 0; e < experts; ++e) {
    if (ranks > 1) queue.push({static_cast<double>(expert_load[e]), 1, e});
  }
  // check_shape's slots_per_rank <= experts keeps the redundant slots within the cap of
  // one replica per rank, so the queue never runs dry before they are all given.
  for (uint64_t extra = uint64_t{ranks} * slots_per_rank - experts; extra > 0; --extra) {
    const Candidate top = queue.top();
    queue.pop();
    const uint32_t replicas = ++counts[top.expert];
    if (replicas < ranks) {
      queue.push({static_cast<double>(expert_load[top.expert]) / replicas, replicas, top.expert});  // load / replicas
    }
  }
  return counts;
}

namespace {

// One replica to pack: its expert and the share of that expert's load it serves.
struct Item {
  double load;
  uint32_t expert;
};

// The ranks being filled: per rank its load, its experts by slot, and which experts it holds.
class Bins {
 public:
  Bins(uint32_t experts, uint32_t ranks, uint32_t slots_per_rank)
      : experts_(experts), slots_per_rank_(slots_per_rank), loads_(ranks, 0.0), held_(ranks),
        has_(size_t{ranks} * experts, false) {}

  uint32_t ranks() const { return static_cast<uint32_t>(loads_.size()); }
  bool full(uint32_t rank) const { return held_[rank].size() == slots_per_rank_; }
  bool has(uint32_t rank, uint32_t expert) const { return has_[size_t{rank} * experts_ + expert]; }

  // The least-loaded rank satisfying `eligible` (ties: fewer filled slots, then the lower
  // rank), or ranks() if none does.
  template <typename Eligible>
  uint32_t lightest(Eligible eligible) const {
    uint32_t best = ranks();
    for (uint32_t rank = 0; rank < ranks(); ++rank) {
      if (!eligible(rank)) continue;
      if (best == ranks() || loads_[rank] < loads_[best] ||
          (loads_[rank] == loads_[best] && held_[rank].size() < held_[best].size())) {
        best = rank;
      }
    }
    return best;
  }

  void add(uint32_t rank, const Item& item) {
    held_[rank].push_back(item);
    loads_[rank] += item.load;
    has_[size_t{rank} * experts_ + item.expert] = true;
  }

  // Takes the item in `slot` of `rank` out, the later slots moving up one.
  Item remove(uint32_t rank, uint32_t slot) {
    const Item item = held_[rank][slot];
    held_[rank].erase(held_[rank].begin() + slot);
    loads_[rank] -= item.load;
    has_[size_t{rank} * experts_ + item.expert] = false;
    return item;
  }

  const std::vector<Item>& held(uint32_t rank) const { return held_[rank]; }

  std::vector<uint32_t> slot_experts() const {
    std::vector<uint32_t> table;
    table.reserve(size_t{ranks()} * slots_per_rank_);
    for (const std::vector<Item>& items : held_) {
      for (const Item& item : items) table.push_back(item.expert);
    }
    return table;
  }

 private:
  uint32_t experts_;
  uint32_t slots_per_rank_;
  std::vector<double> loads_;             // [ranks]
  std::vector<std::vector<Item>> held_;   // [ranks][filled slots]
  std::vector<bool> has_;                 // [ranks * experts]
};

// Every rank with a free slot holds `item`'s expert: put the item on the least-loaded rank
// q without it and move q's lightest replica that the free rank lacks to the free rank.
// Such a replica exists: q is full with slots_per_rank distinct experts, and the free rank
// holds at most slots_per_rank - 2 experts besides item's.
void place_by_exchange(Bins& bins, const Item& item) {
  const uint32_t free_rank = bins.lightest([&](uint32_t rank) { return !bins.full(rank); });
  const uint32_t other = bins.lightest([&](uint32_t rank) { return !bins.has(rank, item.expert); });
  const std::vector<Item>& held = bins.held(other);
  uint32_t moved = static_cast<uint32_t>(held.size());
  for (uint32_t slot = 0; slot < held.size(); ++slot) {
    if (bins.has(free_rank, held[slot].expert)) continue;
    if (moved == held.size() || held[slot].load < held[moved].load) moved = slot;
  }
  bins.add(free_rank, bins.remove(other, moved));
  bins.add(other, item);
}

}  // namespace

Placement pack_replicas(std::span<const int64_t> expert_load, std::span<const uint32_t> replica_counts, uint32_t ranks,
                        uint32_t slots_per_rank) {
  const auto experts = static_cast<uint32_t>(expert_load.size());
  check_shape(experts, ranks, slots_per_rank);
  check_expert_load(expert_load, experts, "pack replicas");
  sdk::require(replica_counts.size() == experts, "pack replicas: " + to_string(replica_counts.size()) +
                                                     " replica counts for " + to_string(experts) + " experts");
  uint64_t total = 0;
  std::vector<Item> items;
  for (uint32_t e = 0; e < experts; ++e) {
    const uint32_t count = replica_counts[e];
    sdk::require(count >= 1 && count <= ranks, "pack replicas: expert " + to_string(e) + " has " + to_string(count) +
                                                   " replicas; each needs 1 to ranks (" + to_string(ranks) + ")");
    total += count;
    for (uint32_t i = 0; i < count; ++i) items.push_back({static_cast<double>(expert_load[e]) / count, e});
  }
  sdk::require(total == uint64_t{ranks} * slots_per_rank,
               "pack replicas: " + to_string(total) + " replicas for " + to_string(uint64_t{ranks} * slots_per_rank) +
                   " slots (ranks x slots_per_rank)");
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.load > b.load; });

  Bins bins(experts, ranks, slots_per_rank);
  for (const Item& item : items) {
    const uint32_t rank = bins.lightest([&](uint32_t r) { return !bins.full(r) && !bins.has(r, item.expert); });
    if (rank < ranks) {
      bins.add(rank, item);
    } else {
      place_by_exchange(bins, item);
    }
  }
  return Placement(experts, ranks, slots_per_rank, bins.slot_experts());
}

Placement plan_placement(std::span<const int64_t> expert_load, uint32_t ranks, uint32_t slots_per_rank) {
  const std::vector<uint32_t> counts = replica_counts(expert_load, ranks, slots_per_rank);
  return pack_replicas(expert_load, counts, ranks, slots_per_rank);
}

}  // namespace dopant::expert_balance
