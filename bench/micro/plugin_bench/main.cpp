// dopant-bench: registers a Google Benchmark for every loaded plugin of every kind on that
// kind's standard inputs, so a third party's plugin is measured next to ours with no code.
// Google Benchmark's own flags apply (--benchmark_repetitions, --benchmark_enable_random_interleaving,
// --benchmark_out=FILE --benchmark_out_format=json, --benchmark_filter=...); its JSON is the
// schema google/benchmark's tools/compare.py reads. dopant's own flag: --plugin-path DIR.
#include "bench_runtime.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace dopant::bench;
  std::string plugin_path;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--plugin-path") == 0 && i + 1 < argc) {
      plugin_path += (plugin_path.empty() ? "" : ":") + std::string(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  dpt_runtime_options options{};
  options.struct_size = sizeof options;
  options.plugin_path = plugin_path.empty() ? nullptr : plugin_path.c_str();
  options.log_level = DPT_LOG_WARN;
  dpt_runtime* created = nullptr;
  if (dpt_error* error = dpt_runtime_create(&options, &created)) {
    std::fprintf(stderr, "dopant-bench: %s\n", dpt_error_get_message(error));
    dpt_error_destroy(error);
    return 1;
  }
  set_runtime(created);

  for (uint32_t i = 0; i < dpt_runtime_plugin_count(created); ++i) {
    const dpt_plugin_descriptor* plugin = dpt_runtime_plugin(created, i)->descriptor;
    const std::string kind = plugin->kind;
    if (kind == DPT_KIND_OPTIMIZER) register_optimizer(plugin->id);
    else if (kind == DPT_KIND_ROUTER) register_router(plugin->id);
    else if (kind == DPT_KIND_PARALLEL) register_parallel(plugin->id);
    else if (kind == DPT_KIND_SANDBOX) register_sandbox(plugin->id);
    else if (kind == DPT_KIND_CHECKPOINT) register_checkpoint(plugin->id);
  }

  int count = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  benchmark::Initialize(&count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(count, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  dpt_runtime_destroy(created);
  return 0;
}
