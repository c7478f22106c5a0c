// The `spawn` sandbox plugin, the baseline of its kind: like a hosted provider's per-call
// model, every exec, put and get starts a new isolated process (the same isolation as
// `pbox`) and ends it after the reply; data goes through the socket, inline. A box's
// workspace is a host folder bound into each of those processes.
#include <dopant/sdk/sdk.hpp>

#include "box_pool.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace sandbox = dopant::sandbox;

class SpawnSandbox : public sandbox::BoxPool {
 public:
  SpawnSandbox(const dpt_host*, const sdk::Config& config)
      : BoxPool(sandbox::read_box_settings(config), sandbox::PoolMode::per_call, 0) {}
};

constexpr dpt_plugin_descriptor kSpawn = sdk::describe<sdk::SandboxAdapter<SpawnSandbox>>(
    "spawn", "0.1.0",
    "a new isolated process (namespaces, seccomp, rlimits) for every call, data through the socket",
    sdk::param_list<sandbox::kBoxParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-sandbox-spawn", "0.1.0", &kSpawn)
