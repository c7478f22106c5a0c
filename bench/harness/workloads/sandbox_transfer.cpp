// The sandbox-transfer workload: what a rollout's tool calls pay to move data through the
// `sandbox` slot's plugin. In one acquired box it times `round_trips` round trips (put a file,
// get it back, compare the bytes) of 4 KiB and of 1 MiB, `large_round_trips` of 64 MiB, and
// `execs` calls of /bin/true. Then `concurrent_boxes` threads, each with a box of its own,
// make `concurrent_round_trips` 1 MiB round trips each at once.
// Metrics: p50, p90 and p99 of each latency (seconds), the concurrent round trips per
// second, and the p50 of a plain memcpy of 1 MiB on the same machine, the bound a transfer
// cannot beat.
#include "sandbox_transfer.hpp"

#include "statistics.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace dopant::workloads {
namespace {

namespace sdk = dopant::sdk;

const dpt_param_decl kRoundTripsDecl = {DPT_PARAM_DECL_SIZE_1_0, "round_trips", DPT_PARAM_INT, "100", "1", "100000",
                                        nullptr, 0, "", "put+get round trips timed per payload size"};
const dpt_param_decl kExecsDecl = {DPT_PARAM_DECL_SIZE_1_0, "execs", DPT_PARAM_INT, "100", "0", "100000",
                                   nullptr, 0, "", "calls of /bin/true timed (0: none)"};
const dpt_param_decl kLargeRoundTripsDecl = {DPT_PARAM_DECL_SIZE_1_0, "large_round_trips", DPT_PARAM_INT, "10", "0",
                                             "10000", nullptr, 0, "",
                                             "put+get round trips of 64 MiB timed (0: none; the box's "
                                             "workspace_size must hold 64 MiB)"};
const dpt_param_decl kBoxesDecl = {DPT_PARAM_DECL_SIZE_1_0, "concurrent_boxes", DPT_PARAM_INT, "16", "0", "256",
                                   nullptr, 0, "", "boxes used at once by as many threads for the throughput (0: none)"};
const dpt_param_decl kConcurrentTripsDecl = {DPT_PARAM_DECL_SIZE_1_0, "concurrent_round_trips", DPT_PARAM_INT, "10", "1",
                                             "100000", nullptr, 0, "", "1 MiB round trips of each concurrent box"};
const dpt_param_decl* const kParamDecls[] = {&kRoundTripsDecl, &kLargeRoundTripsDecl, &kExecsDecl, &kBoxesDecl,
                                             &kConcurrentTripsDecl};
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

// The slot's sandbox instance.
class Pool {
 public:
  Pool(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant)
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
  }

  const dpt_host* host() const { return host_; }
  const dpt_sandbox_v1& table() const { return *table_; }
  dpt_instance* handle() const { return handle_; }

 private:
  const dpt_host* host_;
  std::unique_ptr<dpt_plugin_instance, decltype(&dpt_plugin_instance_destroy)> instance_;
  const dpt_sandbox_v1* table_ = nullptr;
  dpt_instance* handle_ = nullptr;
};

// One acquired box of the pool, released at the end.
class Box {
 public:
  explicit Box(const Pool& pool) : host_(pool.host()), table_(&pool.table()), handle_(pool.handle()) {
    dpt_sandbox_acquire_args acquired = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
    sdk::check(host_, table_->acquire(handle_, &acquired));
    box_ = acquired.box;
  }
  ~Box() {
    const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    if (dpt_error* error = table_->release(handle_, &release)) host_->error_free(host_, error);
  }
  Box(const Box&) = delete;
  Box& operator=(const Box&) = delete;

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
  const dpt_sandbox_v1* table_;
  dpt_instance* handle_;
  dpt_sandbox_box* box_ = nullptr;
};

// `bytes` of a pattern that a lost or shifted byte would change.
std::string payload_of(size_t bytes) {
  std::string payload(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) payload[i] = static_cast<char>(i * 131 + 7);
  return payload;
}

// Round trips per second of `boxes` threads, each making `trips` 1 MiB round trips in a
// box of its own; the clock starts once every box is acquired.
double concurrent_round_trips_per_second(const Pool& pool, int64_t boxes, int64_t trips) {
  const std::string payload = payload_of(size_t{1} << 20);
  std::vector<std::unique_ptr<Box>> acquired;
  for (int64_t i = 0; i < boxes; ++i) acquired.push_back(std::make_unique<Box>(pool));
  std::vector<std::string> failures(acquired.size());
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  for (size_t t = 0; t < acquired.size(); ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int64_t i = 0; i < trips; ++i) acquired[t]->round_trip(payload);
      } catch (const std::exception& error) {
        failures[t] = error.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const double seconds = seconds_since(start);
  for (const std::string& failure : failures) {
    if (!failure.empty()) sdk::fail(DPT_INTERNAL, "a concurrent box failed: " + failure);
  }
  return static_cast<double>(boxes * trips) / seconds;
}

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const dpt_config* params = dpt_run_config_workload_params(config, variant);
  int64_t round_trips = 0, large_round_trips = 0, execs = 0, boxes = 0, concurrent_trips = 0;
  sdk::check(host, host->config_int(host, params, "round_trips", &round_trips));
  sdk::check(host, host->config_int(host, params, "large_round_trips", &large_round_trips));
  sdk::check(host, host->config_int(host, params, "execs", &execs));
  sdk::check(host, host->config_int(host, params, "concurrent_boxes", &boxes));
  sdk::check(host, host->config_int(host, params, "concurrent_round_trips", &concurrent_trips));
  const Pool pool(runtime, config, variant);
  {
    Box box(pool);
    const std::tuple<const char*, size_t, int64_t> sizes[] = {{"roundtrip_4kib", size_t{4} << 10, round_trips},
                                                              {"roundtrip_1mib", size_t{1} << 20, round_trips},
                                                              {"roundtrip_64mib", size_t{64} << 20, large_round_trips}};
    for (const auto& [name, bytes, trips] : sizes) {
      if (trips == 0) continue;
      const std::string payload = payload_of(bytes);
      std::vector<double> samples;
      for (int64_t i = 0; i < trips; ++i) {
        if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
        samples.push_back(box.round_trip(payload));
      }
      report_quantiles(host, name, std::move(samples));
    }
    std::vector<double> samples;
    for (int64_t i = 0; i < execs; ++i) {
      if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
      samples.push_back(box.exec_true());
    }
    if (execs > 0) report_quantiles(host, "exec_true", std::move(samples));
  }
  if (boxes > 0) {
    host->metric(host, "concurrent_roundtrips_per_s", concurrent_round_trips_per_second(pool, boxes, concurrent_trips),
                 "1/s", DPT_BETTER_HIGHER);
  }

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
                                                 "times put+get round trips and exec of /bin/true in one box of the sandbox "
                                                 "slot, and round trips of 16 boxes at once",
                                                 kParamDecls,
                                                 static_cast<uint32_t>(std::size(kParamDecls)),
                                                 kSlots,
                                                 static_cast<uint32_t>(std::size(kSlots))};

dpt_error* run_sandbox_transfer(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  return sdk::guard(dpt_runtime_host(runtime), [&] { run(runtime, config, variant); });
}

}  // namespace dopant::workloads
