// The `replay-delta` router plugin: topk routing plus routing replay that sends, each turn,
// only the rows [start_len, seqlen - 1) the trainer does not hold, packed at
// ceil(log2 experts) bits per id.
#include "dopant/replay_router/replay_router.hpp"

namespace {

namespace sdk = dopant::sdk;
using Router = dopant::replay_router::ReplayRouter<dopant::replay_router::Codec::packed_delta>;

constexpr dpt_plugin_descriptor kReplayDelta =
    sdk::describe<sdk::RouterAdapter<Router>, &sdk::router_replay_extension<Router>>(
        "replay-delta", "0.1.0", "topk routing; replay sends each turn's new rows only, bit-packed",
        sdk::param_list<dopant::topk_router::kTopkParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-replay-delta", "0.1.0", &kReplayDelta)
