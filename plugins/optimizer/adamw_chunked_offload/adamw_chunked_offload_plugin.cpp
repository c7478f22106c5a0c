// The `adamw-chunked-offload` optimizer plugin (the optimized side): AdamW whose
// master weights and moments live in pinned host memory and stream through two device slots
// of `chunk` bytes each step; bit-identical to `adamw`. The AdamW parameters and defaults
// are `adamw`'s (PyTorch's); docs/optimizers-offload.md describes the recipe.
#include <dopant/sdk/sdk.hpp>

#include "chunked_offload_adamw.hpp"
#include "dopant/adamw_common/hyper_params.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace adamw_common = dopant::adamw_common;

constexpr dpt_param_decl kOffloadParams[] = {
    adamw_common::kLrParam,
    adamw_common::kBeta1Param,
    adamw_common::kBeta2Param,
    adamw_common::kEpsParam,
    adamw_common::kWeightDecayParam,
    sdk::size_param("chunk", "256MiB",
                    "bytes of state per streamed chunk; two device slots of at most this size")
        .range("1MiB", "256TiB")  // at most sdk::kMaxTensorBytes: two slots never wrap 64 bits
        .unit("B"),
    sdk::float_param("offload_fraction", "1",
                     "share of each group's state bytes kept in host memory, largest "
                     "tensors first; the rest stays on the device")
        .range("0", "1"),
};

constexpr dpt_plugin_descriptor kChunkedOffload =
    sdk::describe<sdk::OptimizerAdapter<dopant::adamw_offload::ChunkedOffloadAdamW>>(
        "adamw-chunked-offload", "1.0.0",
        "AdamW with state in pinned host memory, streamed through two device chunk slots; "
        "bit-identical to adamw",
        sdk::param_list<kOffloadParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-adamw-chunked-offload", "1.0.0", &kChunkedOffload)
