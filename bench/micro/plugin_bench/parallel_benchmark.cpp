// Standard input of the parallel kind, on one process: a single-rank topology (the
// host's world communicator, `local` outside mpirun), 2048 tokens of hidden 1024 fp32 routed top-2 over 8 experts; one iteration
// is a dispatch plus a combine. Strategies that need several ranks report the reason and
// are skipped; multi-rank runs belong to the MPI workloads.
#include "bench_runtime.hpp"

namespace dopant::bench {
namespace {

constexpr int64_t kTokens = 2048;
constexpr int64_t kHidden = 1024;
constexpr int64_t kTopK = 2;
constexpr uint32_t kExperts = 8;

void dispatch_combine(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_parallel_v1*>(dpt_plugin_instance_table(instance.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
  dpt_parallel_topology topology{};
  topology.struct_size = sizeof topology;
  topology.num_experts = kExperts;
  topology.top_k = kTopK;
  topology.hidden = kHidden;
  if (skip_on_error(state, table->setup(handle, &topology))) return;

  std::vector<float> tokens(kTokens * kHidden, 0.5f);
  std::vector<int32_t> ids(kTokens * kTopK);
  std::vector<float> weights(kTokens * kTopK, 0.5f);
  std::vector<float> out(kTokens * kHidden);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 5 + i / kTopK) % kExperts);
  TensorView tokens_view(tokens.data(), kFloat32, {kTokens, kHidden});
  TensorView ids_view(ids.data(), kInt32, {kTokens, kTopK});
  TensorView weights_view(weights.data(), kFloat32, {kTokens, kTopK});
  TensorView out_view(out.data(), kFloat32, {kTokens, kHidden});
  for (auto _ : state) {
    dpt_dispatch_args dispatch{};
    dispatch.struct_size = sizeof dispatch;
    dispatch.tokens = &tokens_view.tensor;
    dispatch.expert_ids = &ids_view.tensor;
    dispatch.weights = &weights_view.tensor;
    if (skip_on_error(state, table->dispatch(handle, &dispatch, nullptr))) return;
    // Identity experts: the received tokens are their own outputs.
    dpt_combine_args combine{};
    combine.struct_size = sizeof combine;
    combine.exchange = dispatch.exchange;
    combine.expert_outputs = &dispatch.expert_tokens;
    combine.out = &out_view.tensor;
    if (skip_on_error(state, table->combine(handle, &combine, nullptr))) return;
  }
  state.SetItemsProcessed(state.iterations() * kTokens);
}

}  // namespace

void register_parallel(const std::string& plugin) {
  benchmark::RegisterBenchmark(("parallel/" + plugin).c_str(), dispatch_combine, plugin)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace dopant::bench
