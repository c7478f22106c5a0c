// The cost of one call through an ABI table made by the SDK adapter (indirect call, struct
// widening, exception guard) next to a direct C++ call of the same method. The method is
// kept out of line so both paths do the same work; only the route to it differs.
#include <dopant/runtime.h>
#include <dopant/sdk/sdk.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

namespace sdk = dopant::sdk;

namespace {

// An optimizer-like class whose step does trivial work.
class TinyOptimizer {
 public:
  TinyOptimizer(const dpt_host*, const sdk::Config&) {}
  void add_param_group(const dpt_param_group&) {}
  [[gnu::noinline]] void step(const dpt_step_args& args, dpt_stream*) { total_ += args.lr_scale; }
  void export_state(const sdk::StateVisitor&) const {}
  void import_state(const char*, const char*, const DLTensor&) {}
  double total() const { return total_; }

 private:
  double total_ = 0.0;
};

using Adapter = sdk::OptimizerAdapter<TinyOptimizer>;

const dpt_step_args kArgs = DPT_STEP_ARGS_INIT;

void direct_call(benchmark::State& state) {
  TinyOptimizer optimizer(nullptr, sdk::Config(nullptr, nullptr));
  for (auto _ : state) {
    optimizer.step(kArgs, nullptr);
    benchmark::DoNotOptimize(optimizer);
  }
  benchmark::DoNotOptimize(optimizer.total());
}

void abi_table_call(benchmark::State& state) {
  const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, 1, DPT_LOG_WARN, 1};
  dpt_runtime* runtime = nullptr;
  dpt_instance* handle = nullptr;
  if (dpt_runtime_create(&options, &runtime) != nullptr) std::abort();
  const dpt_host* host = dpt_runtime_host(runtime);
  // Read the table through a volatile pointer, as a core that loaded it would see it: the
  // compiler cannot devirtualize the call.
  const dpt_optimizer_v1* volatile table_pointer = &Adapter::table;
  const dpt_optimizer_v1* table = table_pointer;
  if (table->create(host, nullptr, &handle) != nullptr) std::abort();
  for (auto _ : state) {
    dpt_error* error = table->step(handle, &kArgs, nullptr);
    benchmark::DoNotOptimize(error);
  }
  table->destroy(handle);
  dpt_runtime_destroy(runtime);
}

}  // namespace

BENCHMARK(direct_call);
BENCHMARK(abi_table_call);
