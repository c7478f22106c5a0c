// The `topk` router plugin (the baseline that recomputes routing): TopkRouter, described.
#include "dopant/topk_router/topk_router.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace topk_router = dopant::topk_router;

constexpr dpt_plugin_descriptor kTopk = sdk::describe<sdk::RouterAdapter<topk_router::TopkRouter>>(
    "topk", "0.1.0",
    "top-k MoE routing: softmax (Mixtral) or DeepSeek-V3/Kimi-K2 sigmoid with groups and bias",
    sdk::param_list<topk_router::kTopkParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-topk", "0.1.0", &kTopk)
