// The `pbox` sandbox plugin, the optimized side of its kind: a warm pool of long-lived
// isolated workers (namespaces, seccomp, rlimits, a size-capped tmpfs workspace), driven over
// a socketpair with payloads in one memfd buffer per box that both sides keep mapped.
// Released boxes are wiped and reused. With `runtime = "runsc"` each worker runs inside a
// gVisor sandbox of its own, a second boundary (payloads then travel inline). With `server` set, it owns no workers: every call goes
// to a pool shared between processes (`dopant sandbox serve`, pool_client.hpp).
#include <dopant/sdk/sdk.hpp>

#include "box_pool.hpp"
#include "pool_client.hpp"

#include <memory>

namespace {

namespace sdk = dopant::sdk;
namespace sandbox = dopant::sandbox;

constexpr const char* kRuntimeChoices[] = {"native", "runsc"};

constexpr dpt_param_decl kPboxParams[] = {
    sandbox::kBoxParams[0], sandbox::kBoxParams[1], sandbox::kBoxParams[2], sandbox::kBoxParams[3],
    sandbox::kBoxParams[4], sandbox::kBoxParams[5], sandbox::kBoxParams[6], sandbox::kBoxParams[7],
    sandbox::kBoxParams[8],
    sdk::int_param("warm", "2", "boxes started with the pool, ready before the first acquire").range("0", "256"),
    sdk::string_param("server", "",
                      "socket of a shared pool (`dopant sandbox serve`) to use instead of owning workers; "
                      "the server's own parameters then make the boxes"),
    sdk::enum_param("runtime", "native", kRuntimeChoices,
                    "native: each worker in namespaces of its own on the host kernel; runsc: each worker "
                    "inside a gVisor sandbox (Debian's `runsc`, run as root), a second boundary"),
};
static_assert(std::size(sandbox::kBoxParams) == 9, "list every shared parameter above");

// Either a pool of its own or a client of a shared one; the calls are the same.
class Pbox {
 public:
  Pbox(const dpt_host*, const sdk::Config& config) {
    if (const std::string server = config.get_string("server"); !server.empty()) {
      pool_ = std::make_unique<sandbox::PoolClient>(server);
    } else {
      sandbox::BoxSettings settings = sandbox::read_box_settings(config);
      if (config.get_string("runtime") == "runsc") settings.runtime = sandbox::Runtime::runsc;
      pool_ = std::make_unique<sandbox::BoxPool>(settings, sandbox::PoolMode::warm,
                                                 static_cast<uint64_t>(config.get_int("warm")));
    }
  }
  dpt_sandbox_box* acquire() { return pool_->acquire(); }
  void release(dpt_sandbox_box* box) { pool_->release(box); }
  void exec(dpt_sandbox_exec_args& args) { pool_->exec(args); }
  void put(const dpt_sandbox_put_args& args) { pool_->put(args); }
  void get(dpt_sandbox_get_args& args) { pool_->get(args); }
  void reset(dpt_sandbox_box* box) { pool_->reset(box); }
  dpt_sandbox_stats stats() { return pool_->stats(); }

 private:
  std::unique_ptr<sandbox::Pool> pool_;
};

constexpr dpt_plugin_descriptor kPbox = sdk::describe<sdk::SandboxAdapter<Pbox>>(
    "pbox", "0.1.0",
    "a warm pool of isolated workers (namespaces, seccomp, rlimits), payloads in memfd shared memory",
    sdk::param_list<kPboxParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-sandbox-pbox", "0.1.0", &kPbox)
