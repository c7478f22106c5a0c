// The `stream` checkpoint plugin: converts Megatron checkpoints (torch_dist or legacy) to
// Hugging Face safetensors with bounded memory. N workers take tasks largest first and read
// each task's pieces straight from the chunk files; memory is about workers x task_size.
#include <dopant/sdk/sdk.hpp>

#include "dopant/convert_plugin/megatron_to_hf.hpp"

#include <algorithm>
#include <thread>

namespace {

namespace sdk = dopant::sdk;
namespace cp = dopant::convert_plugin;

class StreamConvert : public cp::MegatronToHf {
 public:
  StreamConvert(const dpt_host* host, const sdk::Config& config) : MegatronToHf(host, options(config)) {}

 private:
  static cp::StrategyOptions options(const sdk::Config& config) {
    cp::StrategyOptions options;
    options.strategy = "stream";
    const int64_t workers = config.get_int("workers");  // 0: one per core, at most 8
    options.workers = workers > 0 ? static_cast<unsigned>(workers) : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    options.task_bytes = config.get_size("task_size");
    return options;
  }
};

constexpr dpt_param_decl kParams[] = {
    sdk::int_param("workers", "0", "reading threads; 0: one per core, at most 8").range("0", "1024"),
    sdk::size_param("task_size", "2GiB",
                    "most bytes of output tensors read, held and written together; a larger tensor is a task alone")
        .range("1B", "1TiB")
        .unit("B"),
};

constexpr dpt_plugin_descriptor kStream =
    sdk::describe<sdk::CheckpointAdapter<StreamConvert>, &sdk::checkpoint_convert_extension<StreamConvert>>(
        "stream", "0.1.0", "Megatron to Hugging Face conversion, streamed by N workers with bounded memory",
        sdk::param_list<kParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-stream", "0.1.0", &kStream)
