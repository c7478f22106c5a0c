// Standard input of the sandbox kind: one call of `/bin/cat` with a 1 MiB payload on
// standard input, echoed back. Reported as calls and bytes moved per second.
#include "bench_runtime.hpp"

namespace dopant::bench {
namespace {

constexpr uint64_t kPayload = 1 << 20;

void cat_payload(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_sandbox_draft*>(dpt_plugin_instance_table(instance.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
  std::vector<char> payload(kPayload);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  const char* argv[] = {"/bin/cat", nullptr};
  dpt_sandbox_request request{};
  request.struct_size = sizeof request;
  request.argv = argv;
  request.input = payload.data();
  request.input_bytes = payload.size();
  for (auto _ : state) {
    dpt_sandbox_result result{};
    result.struct_size = sizeof result;
    if (skip_on_error(state, table->execute(handle, &request, &result))) return;
    const bool echoed = result.exit_code == 0 && result.output_bytes == kPayload;
    table->release_result(handle, &result);
    if (!echoed) {
      state.SkipWithError("sandbox did not echo the payload");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * kPayload));
}

}  // namespace

void register_sandbox(const std::string& plugin) {
  benchmark::RegisterBenchmark(("sandbox/" + plugin).c_str(), cat_payload, plugin)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace dopant::bench
