// The `adamw-chunked-offload` optimizer plugin (the optimized side of issue 4): AdamW whose
// master weights and moments live in pinned host memory and stream through two device slots
// of `chunk` bytes each step; bit-identical to `adamw`. The AdamW parameters and defaults
// are `adamw`'s (PyTorch's); docs/optimizers-offload.md describes the recipe.
#include <dopant/sdk/sdk.hpp>

#include "chunked_offload_adamw.hpp"

namespace {

namespace sdk = dopant::sdk;

constexpr dpt_param_decl kOffloadParams[] = {
    sdk::float_param("lr", "1e-3", "learning rate").min("0"),
    sdk::float_param("beta1", "0.9", "decay of the first moment (exp_avg)").range("0", "1"),
    sdk::float_param("beta2", "0.999", "decay of the second moment (exp_avg_sq)")
        .range("0", "1"),
    sdk::float_param("eps", "1e-8", "added to the denominator").min("0"),
    sdk::float_param("weight_decay", "1e-2", "decoupled weight decay").min("0"),
    sdk::size_param("chunk", "256MiB",
                    "bytes of state per streamed chunk; two device slots of at most this size")
        .min("1MiB")
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
