// Expert-parallel load balancing on Zipf-skewed routing, as a Google Benchmark table:
//   balance/<experts>/<ranks>/<s x 10>/<extra slots per rank>
// Routing: 8192 tokens, top-8 distinct experts each, expert popularity proportional to
// 1 / rank^s over a seeded shuffle of the expert ids (so the hot experts are not all in
// the first block). The time is one plan_placement call on that step's per-expert load
// with experts / ranks slots per rank plus the extra ones (1, and a quarter more when that
// is more than 1), which hold redundant replicas. Counters,
// max/mean tokens per rank:
//   blocks    contiguous blocks, one replica each (no balancing);
//   packed    the planner with no redundant slot (packing only);
//   balanced  the planner with the redundant slots;
//   next      `balanced`'s placement serving the next step (a fresh sample of the same
//             popularity): what a placement planned from past load gives;
//   node_next the same for the node-aware plan with 8 ranks per node (fewer ranks: one
//             node) and 8 expert groups, each group's replicas kept on one node.
//
//   expert_balance_bench [--benchmark_filter=balance/256/]
#include <benchmark/benchmark.h>

#include <dopant/expert_balance/node_planner.hpp>
#include <dopant/expert_balance/planner.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace {

namespace balance = dopant::expert_balance;

constexpr int kTokens = 8192;
constexpr int kTopK = 8;

// One step's per-expert token counts: each token picks kTopK distinct experts, each draw
// weighted by the Zipf popularity of the shuffled ranks.
std::vector<int64_t> routed_load(uint32_t experts, double s, uint32_t popularity_seed, uint32_t step_seed) {
  std::vector<uint32_t> order(experts);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(popularity_seed));
  std::vector<double> weight(experts);
  for (uint32_t i = 0; i < experts; ++i) weight[order[i]] = 1.0 / std::pow(i + 1, s);  // Zipf: 1 / rank^s
  std::discrete_distribution<uint32_t> pick(weight.begin(), weight.end());
  std::mt19937 random(step_seed);
  std::vector<int64_t> load(experts, 0);
  std::vector<uint32_t> chosen;
  for (int token = 0; token < kTokens; ++token) {
    chosen.clear();
    while (chosen.size() < kTopK) {
      const uint32_t e = pick(random);
      if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) chosen.push_back(e);
    }
    for (uint32_t e : chosen) ++load[e];
  }
  return load;
}

double spread(const balance::Placement& placement, const std::vector<int64_t>& load) {
  return balance::imbalance(placement.rank_loads(load));
}

void plan(benchmark::State& state) {
  const auto experts = static_cast<uint32_t>(state.range(0));
  const auto ranks = static_cast<uint32_t>(state.range(1));
  const double s = static_cast<double>(state.range(2)) / 10.0;
  const uint32_t base = experts / ranks;
  const uint32_t slots = base + static_cast<uint32_t>(state.range(3));
  const std::vector<int64_t> load = routed_load(experts, s, experts + ranks, 1);
  const std::vector<int64_t> next_load = routed_load(experts, s, experts + ranks, 2);
  const balance::Placement balanced = balance::plan_placement(load, ranks, slots);
  state.counters["blocks"] = spread(balance::Placement::blocks(experts, ranks), load);
  state.counters["packed"] = spread(balance::plan_placement(load, ranks, base), load);
  state.counters["balanced"] = spread(balanced, load);
  state.counters["next"] = spread(balanced, next_load);
  const balance::NodeLayout layout{std::min<uint32_t>(ranks, 8), 8};
  state.counters["node_next"] = spread(balance::plan_placement_by_node(load, ranks, slots, layout), next_load);
  state.counters["slots"] = slots;
  for (auto _ : state) benchmark::DoNotOptimize(balance::plan_placement(load, ranks, slots));
}

void shapes(benchmark::internal::Benchmark* bench) {
  for (int64_t experts : {256, 384}) {
    for (int64_t ranks : {4, 16, 64}) {
      for (int64_t s10 : {8, 10, 12}) {
        bench->Args({experts, ranks, s10, 1});
        if (experts / ranks / 4 > 1) bench->Args({experts, ranks, s10, experts / ranks / 4});
      }
    }
  }
}

}  // namespace

BENCHMARK(plan)->Name("balance")->Apply(shapes)->ArgNames({"", "", "", ""})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
