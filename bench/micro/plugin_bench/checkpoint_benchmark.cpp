// Standard input of the checkpoint kind: four named fp32 tensors, 16 MiB in all, written to
// a fresh temporary folder and read back; one iteration is one write plus one read.
#include "bench_runtime.hpp"

#include <filesystem>
#include <unistd.h>

namespace dopant::bench {
namespace {

constexpr int64_t kElements = 1 << 20;  // per tensor

dpt_error* count_tensor(void* context, const char*, const DLTensor*) {
  ++*static_cast<int*>(context);
  return nullptr;
}

void write_read(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_checkpoint_draft*>(dpt_plugin_instance_table(instance.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
  std::vector<std::vector<float>> data(4, std::vector<float>(kElements, 0.25f));
  std::vector<std::unique_ptr<TensorView>> views;
  std::vector<DLTensor> tensors;
  for (auto& values : data) {
    views.push_back(std::make_unique<TensorView>(values.data(), kFloat32, std::vector<int64_t>{kElements}));
    tensors.push_back(views.back()->tensor);
  }
  const char* names[] = {"layer.0.weight", "layer.1.weight", "layer.2.weight", "layer.3.weight"};
  const auto folder = std::filesystem::temp_directory_path() / ("dopant-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  const std::string path = (folder / "checkpoint").string();
  for (auto _ : state) {
    int seen = 0;
    if (skip_on_error(state, table->write(handle, path.c_str(), 4, names, tensors.data())) ||
        skip_on_error(state, table->read(handle, path.c_str(), count_tensor, &seen))) {
      break;
    }
    if (seen != 4) {
      state.SkipWithError("checkpoint did not read back four tensors");
      break;
    }
  }
  std::filesystem::remove_all(folder);
  state.SetBytesProcessed(state.iterations() * 2 * 4 * kElements * 4);
}

}  // namespace

void register_checkpoint(const std::string& plugin) {
  benchmark::RegisterBenchmark(("checkpoint/" + plugin).c_str(), write_read, plugin)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace dopant::bench
