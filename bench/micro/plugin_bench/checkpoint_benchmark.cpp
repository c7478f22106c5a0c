// Standard input of the checkpoint kind: four named fp32 tensors, 16 MiB in all, written to
// a fresh destination in a temporary folder and read back chunk by chunk; one iteration is
// one write plus one read.
#include "bench_runtime.hpp"

#include <filesystem>
#include <unistd.h>

namespace dopant::bench {
namespace {

constexpr int64_t kElements = 1 << 20;  // per tensor

// One write (begin, four adds, finalize) and one read (open, list, every chunk, close) of
// `destination`, which is removed afterwards; false when a call failed.
bool write_and_read_once(benchmark::State& state, const dpt_checkpoint_v1& table, dpt_instance* handle,
                const std::string& destination, const char* const* names, const std::vector<DLTensor>& tensors,
                std::vector<char>& buffer) {
  dpt_checkpoint_begin_args begin{DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, nullptr, destination.c_str(), 0,
                                  nullptr, nullptr, nullptr};
  if (skip_on_error(state, table.writer_begin(handle, &begin))) return false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const dpt_checkpoint_add_args add{DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6, nullptr, begin.writer, names[i],
                                      &tensors[i]};
    if (skip_on_error(state, table.writer_add(handle, &add))) {
      table.writer_abort(handle, begin.writer);
      return false;
    }
  }
  const dpt_checkpoint_finalize_args finalize{DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6, nullptr, begin.writer};
  if (skip_on_error(state, table.writer_finalize(handle, &finalize))) return false;

  dpt_checkpoint_open_args open{DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, nullptr, destination.c_str(), nullptr};
  if (skip_on_error(state, table.reader_open(handle, &open))) return false;
  dpt_checkpoint_list_args list{DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, nullptr, open.reader, 0, nullptr, 0,
                                nullptr, nullptr};
  bool ok = !skip_on_error(state, table.reader_list(handle, &list));
  uint64_t bytes = 0;
  for (uint64_t t = 0; ok && t < list.tensor_count; ++t) {
    for (uint64_t c = 0; ok && c < list.tensors[t]->chunk_count; ++c) {
      const uint64_t length = list.tensors[t]->chunks[c]->byte_length;
      if (buffer.size() < length) buffer.resize(length);
      const dpt_checkpoint_read_args read{DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, nullptr, open.reader, t, c,
                                          buffer.data(), length};
      ok = !skip_on_error(state, table.reader_read(handle, &read));
      bytes += length;
    }
  }
  table.reader_close(handle, open.reader);
  std::filesystem::remove_all(destination);
  if (ok && bytes != tensors.size() * kElements * sizeof(float)) {
    state.SkipWithError("checkpoint did not read back the bytes it was given");
    ok = false;
  }
  return ok;
}

void write_read(benchmark::State& state, const std::string& plugin) {
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_checkpoint_v1*>(dpt_plugin_instance_table(instance.get()));
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
  const std::string destination = (folder / "checkpoint").string();
  std::vector<char> buffer;
  for (auto _ : state) {
    if (!write_and_read_once(state, *table, handle, destination, names, tensors, buffer)) break;
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
