// The `pbox` sandbox plugin, the optimized side of its kind: a warm pool of long-lived
// isolated workers (namespaces, seccomp, rlimits, a size-capped tmpfs workspace), driven over
// a socketpair with payloads in one memfd buffer per box that both sides keep mapped.
// Released boxes are wiped and reused.
#include <dopant/sdk/sdk.hpp>

#include "box_pool.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace sandbox = dopant::sandbox;

constexpr dpt_param_decl kPboxParams[] = {
    sandbox::kBoxParams[0], sandbox::kBoxParams[1], sandbox::kBoxParams[2], sandbox::kBoxParams[3],
    sandbox::kBoxParams[4], sandbox::kBoxParams[5], sandbox::kBoxParams[6], sandbox::kBoxParams[7],
    sandbox::kBoxParams[8],
    sdk::int_param("warm", "2", "boxes started with the pool, ready before the first acquire").range("0", "256"),
};
static_assert(std::size(sandbox::kBoxParams) == 9, "list every shared parameter above");

class Pbox : public sandbox::BoxPool {
 public:
  Pbox(const dpt_host*, const sdk::Config& config)
      : BoxPool(sandbox::read_box_settings(config), sandbox::PoolMode::warm,
                static_cast<uint64_t>(config.get_int("warm"))) {}
};

constexpr dpt_plugin_descriptor kPbox = sdk::describe<sdk::SandboxAdapter<Pbox>>(
    "pbox", "0.1.0",
    "a warm pool of isolated workers (namespaces, seccomp, rlimits), payloads in memfd shared memory",
    sdk::param_list<kPboxParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-sandbox-pbox", "0.1.0", &kPbox)
