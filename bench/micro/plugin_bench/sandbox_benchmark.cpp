// Standard input of the sandbox kind: in one acquired box, one call of `/bin/cat` with a
// 1 MiB payload on standard input, echoed back. Reported as calls and bytes moved per second.
#include "bench_runtime.hpp"

namespace dopant::bench {
namespace {

constexpr uint64_t kPayload = 1 << 20;

void cat_payload(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_sandbox_v1*>(dpt_plugin_instance_table(instance.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
  dpt_sandbox_acquire_args acquired{DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, nullptr, nullptr};
  if (skip_on_error(state, table->acquire(handle, &acquired))) return;
  std::vector<char> payload(kPayload);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  const char* argv[] = {"/bin/cat", nullptr};
  for (auto _ : state) {
    dpt_sandbox_exec_args args{};
    args.struct_size = DPT_SANDBOX_EXEC_ARGS_SIZE_1_4;
    args.box = acquired.box;
    args.argv = argv;
    args.stdin_data = payload.data();
    args.stdin_bytes = payload.size();
    if (skip_on_error(state, table->exec(handle, &args))) break;
    if (args.exit_code != 0 || args.stdout_bytes != kPayload) {
      state.SkipWithError("sandbox did not echo the payload");
      break;
    }
  }
  const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, acquired.box};
  dpt_error_destroy(table->release(handle, &release));
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
