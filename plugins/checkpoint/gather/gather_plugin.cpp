// The `gather` checkpoint plugin: the baseline Megatron → Hugging Face conversion. It reads
// every source tensor whole into memory, then cuts the Hugging Face tensors out of it and
// writes them in the same task order as `stream`, so both write the same bytes; memory is
// at least the checkpoint's size.
#include <dopant/sdk/sdk.hpp>

#include "dopant/convert_plugin/megatron_to_hf.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace cp = dopant::convert_plugin;

class GatherConvert : public cp::MegatronToHf {
 public:
  GatherConvert(const dpt_host* host, const sdk::Config& config)
      : MegatronToHf(host, {"gather", 1, config.get_size("task_size")}) {}
};

constexpr dpt_param_decl kParams[] = {
    sdk::size_param("task_size", "2GiB",
                    "most bytes of output tensors written together (the write order `stream` uses too)")
        .range("1B", "1TiB")
        .unit("B"),
};

constexpr dpt_plugin_descriptor kGather =
    sdk::describe<sdk::CheckpointAdapter<GatherConvert>, &sdk::checkpoint_convert_extension<GatherConvert>>(
        "gather", "0.1.0", "Megatron to Hugging Face conversion, materializing the checkpoint first (baseline)",
        sdk::param_list<kParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-gather", "0.1.0", &kGather)
