// The sandbox-transfer workload: what a rollout's tool calls pay to move data through the
// `sandbox` slot's plugin. In one acquired box it times `round_trips` round trips (put a file,
// get it back, compare the bytes) of 4 KiB and of 1 MiB, and `execs` calls of /bin/true.
// Metrics: p50, p90 and p99 of each (seconds), and the p50 of a plain memcpy of 1 MiB on
// the same machine, the bound a transfer cannot beat.
#include "sandbox_transfer.hpp"

#include "statistics.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace dopant::workloads {
namespace {

namespace sdk = dopant::sdk;

const dpt_param_decl kRoundTripsDecl = {DPT_PARAM_DECL_SIZE_1_0, "round_trips", DPT_PARAM_INT, "100", "1", "100000",
                                        nullptr, 0, "", "put+get round trips timed per payload size"};
const dpt_param_decl kExecsDecl = {DPT_PARAM_DECL_SIZE_1_0, "execs", DPT_PARAM_INT, "100", "1", "100000",
                                   nullptr, 0, "", "calls of /bin/true timed"};
const dpt_param_decl* const kParamDecls[] = {&kRoundTripsDecl, &kExecsDecl};
const char* const kSlots[] = {"sandbox"};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reports `name`_p50, _p90 and _p99 of `samples` (seconds).
void report_quantiles(const dpt_host* host, const std::string& name, std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  for (const auto& [suffix, q] : {std::pair{"_p50", 0.5}, std::pair{"_p90", 0.9}, std::pair{"_p99", 0.99}}) {
    host->metric(host, (name + suffix).c_str(), ab::quantile_of_sorted(samples, q), "s", DPT_BETTER_LOWER);
  }
}

class Session {
 public:
  Session(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant)
      : host_(dpt_runtime_host(runtime)), instance_(nullptr, &dpt_plugin_instance_destroy) {
    const char* plugin = dpt_run_config_slot_plugin(config, variant, "sandbox");
    if (plugin == nullptr) sdk::fail(DPT_INVALID_ARGUMENT, "needs a [sandbox] plugin");
    dpt_plugin_instance* raw = nullptr;
    sdk::check(host_, dpt_plugin_instance_create(runtime, plugin, dpt_run_config_slot_params(config, variant, "sandbox"), &raw));
    instance_.reset(raw);
    if (std::strcmp(dpt_plugin_instance_info(raw)->descriptor->kind, DPT_KIND_SANDBOX) != 0) {
      sdk::fail(DPT_INVALID_ARGUMENT, std::string("plugin `") + plugin + "` is not a sandbox");
    }
    table_ = static_cast<const dpt_sandbox_v1*>(dpt_plugin_instance_table(raw));
    handle_ = dpt_plugin_instance_handle(raw);
    dpt_sandbox_acquire_args acquired = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
    sdk::check(host_, table_->acquire(handle_, &acquired));
    box_ = acquired.box;
  }
  ~Session() {
    const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    if (dpt_error* error = table_->release(handle_, &release)) host_->error_free(host_, error);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Seconds of one put and get of `payload`, whose bytes must come back unchanged.
  double round_trip(const std::string& payload) {
    const auto start = Clock::now();
    dpt_sandbox_put_args put = DPT_SANDBOX_PUT_ARGS_INIT;
    put.box = box_;
    put.path = "payload.bin";
    put.data = payload.data();
    put.bytes = payload.size();
    sdk::check(host_, table_->put(handle_, &put));
    dpt_sandbox_get_args get = DPT_SANDBOX_GET_ARGS_INIT;
    get.box = box_;
    get.path = "payload.bin";
    sdk::check(host_, table_->get(handle_, &get));
    const double seconds = seconds_since(start);
    if (get.bytes != payload.size() || std::memcmp(get.data, payload.data(), payload.size()) != 0) {
      sdk::fail(DPT_DATA_LOSS, "the sandbox returned other bytes than were put");
    }
    return seconds;
  }

  double exec_true() {
    const char* argv[] = {"/bin/true", nullptr};
    dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
    exec.box = box_;
    exec.argv = argv;
    const auto start = Clock::now();
    sdk::check(host_, table_->exec(handle_, &exec));
    const double seconds = seconds_since(start);
    if (exec.exit_code != 0) sdk::fail(DPT_INTERNAL, "/bin/true failed in the sandbox");
    return seconds;
  }

 private:
  const dpt_host* host_;
  std::unique_ptr<dpt_plugin_instance, decltype(&dpt_plugin_instance_destroy)> instance_;
  const dpt_sandbox_v1* table_ = nullptr;
  dpt_instance* handle_ = nullptr;
  dpt_sandbox_box* box_ = nullptr;
};

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const dpt_config* params = dpt_run_config_workload_params(config, variant);
  int64_t round_trips = 0, execs = 0;
  sdk::check(host, host->config_int(host, params, "round_trips", &round_trips));
  sdk::check(host, host->config_int(host, params, "execs", &execs));
  Session session(runtime, config, variant);
  for (const auto& [name, bytes] : {std::pair{"roundtrip_4kib", size_t{4} << 10}, std::pair{"roundtrip_1mib", size_t{1} << 20}}) {
    std::string payload(bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) payload[i] = static_cast<char>(i * 131 + 7);
    std::vector<double> samples;
    for (int64_t i = 0; i < round_trips; ++i) {
      if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
      samples.push_back(session.round_trip(payload));
    }
    report_quantiles(host, name, std::move(samples));
  }
  std::vector<double> samples;
  for (int64_t i = 0; i < execs; ++i) {
    if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
    samples.push_back(session.exec_true());
  }
  report_quantiles(host, "exec_true", std::move(samples));

  std::vector<char> source(size_t{1} << 20, 1), target(source.size());
  std::vector<double> copies;
  for (int i = 0; i < 101; ++i) {
    const auto start = Clock::now();
    std::memcpy(target.data(), source.data(), source.size());
    copies.push_back(seconds_since(start));
    source[static_cast<size_t>(i)] = target[static_cast<size_t>(i) + 1];  // keeps the copy observable
  }
  host->metric(host, "memcpy_1mib_p50", ab::median(copies), "s", DPT_BETTER_LOWER);
}

}  // namespace

const dpt_workload_decl sandbox_transfer_decl = {DPT_WORKLOAD_DECL_SIZE_1_0,
                                                 "sandbox-transfer",
                                                 "times put+get round trips and exec of /bin/true in one box of the sandbox slot",
                                                 kParamDecls,
                                                 static_cast<uint32_t>(std::size(kParamDecls)),
                                                 kSlots,
                                                 static_cast<uint32_t>(std::size(kSlots))};

dpt_error* run_sandbox_transfer(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  return sdk::guard(dpt_runtime_host(runtime), [&] { run(runtime, config, variant); });
}

}  // namespace dopant::workloads
