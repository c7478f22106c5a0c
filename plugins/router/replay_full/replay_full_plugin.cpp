// The `replay-full` router plugin: topk routing plus routing replay that sends every row of
// the session each turn as SGLang's base64 int32, the behaviour before delta replay.
#include "dopant/replay_router/replay_router.hpp"

namespace {

namespace sdk = dopant::sdk;
using Router = dopant::replay_router::ReplayRouter<dopant::replay_router::Codec::sglang_full>;

constexpr dpt_plugin_descriptor kReplayFull =
    sdk::describe<sdk::RouterAdapter<Router>, &sdk::router_replay_extension<Router>>(
        "replay-full", "0.1.0", "topk routing; replay sends all rows each turn as SGLang base64 int32",
        sdk::param_list<dopant::topk_router::kTopkParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-replay-full", "0.1.0", &kReplayFull)
