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
//             node) and 8 expert groups, each group's replicas kept on one node;
//   moved, moved_raw  the share of slots whose expert changes when the next step's load is
//             planned again, with the new plan aligned to `balanced` and without.
//
//   rebalance/<policy>: 256 experts on 16 ranks x 17 slots, s = 1.0, 200 steps whose
//   popularity is reshuffled every 50 steps; the Rebalancer (window 16 steps) under each
//   policy. Counters: `imbalance`, the mean over steps of max/mean tokens per rank on the
//   placement in force when the step arrives; `moved`, slots copied over the run.
//     static     planned on the first step, never again;
//     period     a plan every 16 steps, adopted on any drop;
//     gain5      a plan every 16 steps, adopted when the largest rank load drops > 5 %;
//     threshold  a plan when the window's max/mean passes 1.15, adopted on any drop;
//     threshold_gain5  the same, adopted on a drop > 5 %.
//
//   expert_balance_bench [--benchmark_filter=balance/256/]
#include <benchmark/benchmark.h>

#include <dopant/expert_balance/alignment.hpp>
#include <dopant/expert_balance/node_planner.hpp>
#include <dopant/expert_balance/planner.hpp>
#include <dopant/expert_balance/rebalancer.hpp>

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
  const balance::Placement replanned = balance::plan_placement(next_load, ranks, slots);
  const double all_slots = static_cast<double>(ranks) * slots;
  state.counters["moved"] = balance::moved_slots(balanced, balance::align_to(balanced, replanned)) / all_slots;
  state.counters["moved_raw"] = balance::moved_slots(balanced, replanned) / all_slots;
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

void rebalance(benchmark::State& state, balance::RebalancerConfig config, bool replan) {
  constexpr uint32_t kExperts = 256, kRanks = 16, kSlots = 17, kSteps = 200, kPhase = 50;
  std::vector<std::vector<int64_t>> steps;
  for (uint32_t step = 0; step < kSteps; ++step) steps.push_back(routed_load(kExperts, 1.0, step / kPhase, 100 + step));
  for (auto _ : state) {
    balance::Rebalancer rebalancer(balance::plan_placement(steps[0], kRanks, kSlots), config);
    double imbalance_sum = 0.0;
    uint64_t moved = 0;
    for (const std::vector<int64_t>& load : steps) {
      imbalance_sum += spread(rebalancer.placement(), load);
      if (!replan) continue;
      if (const auto adopted = rebalancer.observe(load)) moved += adopted->moved_slots;
    }
    state.counters["imbalance"] = imbalance_sum / kSteps;
    state.counters["moved"] = static_cast<double>(moved);
  }
}

}  // namespace

BENCHMARK_CAPTURE(rebalance, static, balance::RebalancerConfig{16, 0, 0, 0}, false)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rebalance, period, balance::RebalancerConfig{16, 16, 0, 0}, true)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rebalance, gain5, balance::RebalancerConfig{16, 16, 0, 0.05}, true)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rebalance, threshold, balance::RebalancerConfig{16, 0, 1.15, 0}, true)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rebalance, threshold_gain5, balance::RebalancerConfig{16, 0, 1.15, 0.05}, true)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(plan)->Name("balance")->Apply(shapes)->ArgNames({"", "", "", ""})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
