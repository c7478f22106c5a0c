// Standard input of the router kind: fp32 logits for 4096 tokens over 64 experts, top-8;
// one iteration routes one layer. Reported as tokens per second.
#include "bench_runtime.hpp"

#include <cmath>

namespace dopant::bench {
namespace {

constexpr int64_t kTokens = 4096;
constexpr int64_t kExperts = 64;
constexpr int64_t kTopK = 8;

void route(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_router_v1*>(dpt_plugin_instance_table(instance.get()));
  std::vector<float> logits(kTokens * kExperts);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(0.37f * static_cast<float>(i));
  std::vector<int32_t> ids(kTokens * kTopK);
  std::vector<float> weights(kTokens * kTopK);
  TensorView logits_view(logits.data(), kFloat32, {kTokens, kExperts});
  TensorView ids_view(ids.data(), kInt32, {kTokens, kTopK});
  TensorView weights_view(weights.data(), kFloat32, {kTokens, kTopK});
  dpt_route_args args{};
  args.struct_size = sizeof args;
  args.top_k = kTopK;
  args.logits = &logits_view.tensor;
  args.expert_ids = &ids_view.tensor;
  args.weights = &weights_view.tensor;
  for (auto _ : state) {
    if (skip_on_error(state, table->route(dpt_plugin_instance_handle(instance.get()), &args, nullptr))) return;
  }
  state.SetItemsProcessed(state.iterations() * kTokens);
}

}  // namespace

void register_router(const std::string& plugin) {
  benchmark::RegisterBenchmark(("router/" + plugin).c_str(), route, plugin)->Unit(benchmark::kMicrosecond);
}

}  // namespace dopant::bench
