// The moe-dispatch workload: each rank routes `tokens_per_rank` tokens of `hidden` fp32 to
// top_k of `experts`, expert popularity Zipf-skewed (p(e) ~ 1 / (e + 1)^zipf), dispatches
// them through the `parallel` slot's plugin, runs the toy experts of dopant_moe_exchange,
// and combines. With placement = "balanced", every rank first routes `observe_steps`
// further batches from the same popularity (other seeds, not the measured one), the ranks
// sum their per-expert counts, and plan_placement of dopant_expert_balance places the
// experts on ceil(experts / ranks) + redundant_slots slots per rank: the topology carries
// that placement, and the measured batch is the next step's load. The first combine is checked against the plain sum over k of weight *
// expert output (4 ulps of the terms' magnitudes) and a mismatch fails the run. Metrics,
// the same on every rank (rank 0 prints them):
//   bytes_per_token        bytes all ranks sent to other ranks per dispatch+combine, per token
//   load_max_over_mean     the most expert rows one rank computes over the mean per rank
//   dispatch_combine_p50   median over iterations of the slowest rank's dispatch+combine (s)
#include "moe_dispatch.hpp"

#include <dopant/comm.h>
#include <dopant/parallel.h>
#include <dopant/expert_balance/planner.hpp>
#include <dopant/moe_exchange/toy_experts.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace dopant::workloads {
namespace {

namespace sdk = dopant::sdk;

const char* const kPlacementChoices[] = {"contiguous", "balanced"};
const dpt_param_decl kTokensDecl = {DPT_PARAM_DECL_SIZE_1_0, "tokens_per_rank", DPT_PARAM_INT, "1024", "1", "1048576",
                                    nullptr, 0, "", "tokens each rank dispatches per iteration"};
const dpt_param_decl kHiddenDecl = {DPT_PARAM_DECL_SIZE_1_0, "hidden", DPT_PARAM_INT, "256", "1", "65536",
                                    nullptr, 0, "", "elements per token (fp32)"};
const dpt_param_decl kExpertsDecl = {DPT_PARAM_DECL_SIZE_1_0, "experts", DPT_PARAM_INT, "16", "1", "4096",
                                     nullptr, 0, "", "experts of the MoE layer"};
const dpt_param_decl kTopKDecl = {DPT_PARAM_DECL_SIZE_1_0, "top_k", DPT_PARAM_INT, "2", "1", "64",
                                  nullptr, 0, "", "experts per token"};
const dpt_param_decl kZipfDecl = {DPT_PARAM_DECL_SIZE_1_0, "zipf", DPT_PARAM_FLOAT, "1.2", "0", "10",
                                  nullptr, 0, "", "skew of expert popularity: p(e) ~ 1/(e+1)^zipf; 0 uniform"};
const dpt_param_decl kIterationsDecl = {DPT_PARAM_DECL_SIZE_1_0, "iterations", DPT_PARAM_INT, "20", "1", "100000",
                                        nullptr, 0, "", "dispatch+combine rounds timed"};
const dpt_param_decl kSeedDecl = {DPT_PARAM_DECL_SIZE_1_0, "seed", DPT_PARAM_INT, "0", "0", nullptr,
                                  nullptr, 0, "", "seed of tokens and routing"};
const dpt_param_decl kPlacementDecl = {DPT_PARAM_DECL_SIZE_1_0, "placement", DPT_PARAM_ENUM, "contiguous", nullptr,
                                       nullptr, kPlacementChoices, 2, nullptr,
                                       "expert placement: contiguous blocks, or balanced from observed load"};
const dpt_param_decl kRedundantDecl = {DPT_PARAM_DECL_SIZE_1_0, "redundant_slots", DPT_PARAM_INT, "1", "0", "4096",
                                       nullptr, 0, "",
                                       "balanced: slots per rank beyond ceil(experts / ranks), for replicas of hot experts"};
const dpt_param_decl kObserveDecl = {DPT_PARAM_DECL_SIZE_1_0, "observe_steps", DPT_PARAM_INT, "4", "1", "1000",
                                     nullptr, 0, "", "balanced: batches of routing observed before planning"};
const dpt_param_decl* const kParamDecls[] = {&kTokensDecl,    &kHiddenDecl,    &kExpertsDecl,   &kTopKDecl,
                                             &kZipfDecl,      &kIterationsDecl, &kSeedDecl,     &kPlacementDecl,
                                             &kRedundantDecl, &kObserveDecl};
const char* const kSlots[] = {"parallel"};

using Clock = std::chrono::steady_clock;

struct Settings {
  int64_t tokens = 0, hidden = 0, experts = 0, top_k = 0, iterations = 0, seed = 0;
  int64_t redundant_slots = 0, observe_steps = 0;
  double zipf = 0;
  std::string placement;
};

Settings read_settings(const dpt_host* host, const dpt_config* params) {
  Settings s;
  sdk::check(host, host->config_int(host, params, "tokens_per_rank", &s.tokens));
  sdk::check(host, host->config_int(host, params, "hidden", &s.hidden));
  sdk::check(host, host->config_int(host, params, "experts", &s.experts));
  sdk::check(host, host->config_int(host, params, "top_k", &s.top_k));
  sdk::check(host, host->config_float(host, params, "zipf", &s.zipf));
  sdk::check(host, host->config_int(host, params, "iterations", &s.iterations));
  sdk::check(host, host->config_int(host, params, "seed", &s.seed));
  const char* placement = nullptr;
  sdk::check(host, host->config_string(host, params, "placement", &placement));
  s.placement = placement;
  sdk::check(host, host->config_int(host, params, "redundant_slots", &s.redundant_slots));
  sdk::check(host, host->config_int(host, params, "observe_steps", &s.observe_steps));
  if (s.top_k > s.experts) sdk::fail(DPT_INVALID_ARGUMENT, "[workload] top_k must not exceed experts");
  return s;
}

// This rank's tokens [tokens, hidden], Zipf-routed ids [tokens, top_k] (distinct per token)
// and weights summing to 1 per token.
struct Batch {
  std::vector<float> tokens;
  std::vector<int32_t> ids;
  std::vector<float> weights;
};

// Appends the routing of s.tokens tokens to b.ids and b.weights.
void route(const Settings& s, std::mt19937_64& random, Batch& b) {
  std::uniform_real_distribution<float> weight(0.1f, 1.0f);
  std::vector<double> popularity(static_cast<size_t>(s.experts));
  for (size_t e = 0; e < popularity.size(); ++e) popularity[e] = 1.0 / std::pow(static_cast<double>(e + 1), s.zipf);
  std::discrete_distribution<int32_t> expert(popularity.begin(), popularity.end());
  for (int64_t t = 0; t < s.tokens; ++t) {
    const size_t first = b.ids.size();
    float total = 0;
    while (b.ids.size() - first < static_cast<size_t>(s.top_k)) {
      const int32_t e = expert(random);
      if (std::find(b.ids.begin() + static_cast<std::ptrdiff_t>(first), b.ids.end(), e) != b.ids.end()) continue;
      b.ids.push_back(e);
      b.weights.push_back(weight(random));
      total += b.weights.back();
    }
    for (size_t k = first; k < b.ids.size(); ++k) b.weights[k] /= total;
  }
}

// The measured batch of `rank`.
Batch make_batch(const Settings& s, uint32_t rank) {
  std::mt19937_64 random(static_cast<uint64_t>(s.seed) * 1000003u + rank);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Batch b;
  b.tokens.resize(static_cast<size_t>(s.tokens * s.hidden));
  for (float& x : b.tokens) x = value(random);
  route(s, random, b);
  return b;
}

// Throws unless `out` is, within 4 ulps of the terms' magnitudes, sum over k of weight *
// toy expert output.
void check_combined(const Settings& s, const Batch& b, const std::vector<float>& out) {
  std::vector<float> y(static_cast<size_t>(s.hidden));
  for (int64_t t = 0; t < s.tokens; ++t) {
    std::vector<float> sum(y.size(), 0.0f), bound(y.size(), 0.0f);
    for (int64_t k = 0; k < s.top_k; ++k) {
      const size_t i = static_cast<size_t>(t * s.top_k + k);
      moe_exchange::toy_expert(static_cast<uint32_t>(b.ids[i]), b.tokens.data() + t * s.hidden, y.data(),
                               static_cast<uint64_t>(s.hidden));
      for (size_t h = 0; h < y.size(); ++h) {
        sum[h] += b.weights[i] * y[h];
        bound[h] += 4 * std::numeric_limits<float>::epsilon() * std::fabs(b.weights[i] * y[h]);
      }
    }
    for (size_t h = 0; h < y.size(); ++h) {
      if (!(std::fabs(out[static_cast<size_t>(t * s.hidden) + h] - sum[h]) <= bound[h])) {
        sdk::fail(DPT_DATA_LOSS, "combine returned " + std::to_string(out[static_cast<size_t>(t * s.hidden) + h]) +
                                     " for token " + std::to_string(t) + ", element " + std::to_string(h) +
                                     "; the experts' weighted sum is " + std::to_string(sum[h]));
      }
    }
  }
}

// The world communicator's collectives the workload needs to agree on its metrics.
class World {
 public:
  explicit World(const dpt_host* host) : host_(host) {
    table_ = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
    if (table_ == nullptr) sdk::fail(DPT_UNIMPLEMENTED, "moe-dispatch needs the host's communicator");
    sdk::check(host, table_->world(host, &comm_));
  }
  uint32_t rank() const { return table_->rank(host_, comm_); }
  uint32_t size() const { return table_->size(host_, comm_); }
  // Every rank's value, by rank.
  std::vector<double> gather(double value) {
    std::vector<double> all(size());
    std::vector<uint64_t> counts(size(), sizeof value), displacements(size());
    for (uint32_t r = 0; r < size(); ++r) displacements[r] = r * sizeof value;
    sdk::check(host_, table_->all_gather_v(host_, comm_, &value, all.data(), counts.data(), displacements.data()));
    return all;
  }
  // values[i] summed over ranks, in place.
  void sum(std::vector<int64_t>& values) {
    sdk::check(host_, table_->all_reduce_sum(host_, comm_, values.data(), values.data(), values.size(),
                                             DPT_COMM_INT64));
  }

 private:
  const dpt_host* host_;
  const dpt_host_comm_v1* table_ = nullptr;
  dpt_comm* comm_ = nullptr;
};

// Every rank's count of rows per expert over `observe_steps` batches routed from other seeds
// than the measured one (step i of rank r seeds (seed * 1000003 + r) * 1000003 + i + 1).
std::vector<int64_t> observe_load(const Settings& s, uint32_t rank) {
  std::vector<int64_t> load(static_cast<size_t>(s.experts), 0);
  for (int64_t step = 0; step < s.observe_steps; ++step) {
    std::mt19937_64 random((static_cast<uint64_t>(s.seed) * 1000003u + rank) * 1000003u +
                           static_cast<uint64_t>(step) + 1);
    Batch observed;
    route(s, random, observed);
    for (int32_t e : observed.ids) ++load[static_cast<size_t>(e)];
  }
  return load;
}

// The planner's placement for the load all ranks observed, as the topology carries it.
expert_balance::TopologyArrays balanced_placement(const Settings& s, World& world) {
  const auto ranks = static_cast<int64_t>(world.size());
  const int64_t slots = (s.experts + ranks - 1) / ranks + s.redundant_slots;  // ceil(E / R) + extra
  if (slots > s.experts) {
    sdk::fail(DPT_INVALID_ARGUMENT, "[workload] redundant_slots = " + std::to_string(s.redundant_slots) + " gives " +
                                        std::to_string(slots) + " slots per rank on " + std::to_string(ranks) +
                                        " ranks, more than the " + std::to_string(s.experts) +
                                        " experts (a rank holds an expert at most once)");
  }
  std::vector<int64_t> load = observe_load(s, world.rank());
  world.sum(load);
  return expert_balance::plan_placement(load, world.size(), static_cast<uint32_t>(slots)).topology_arrays();
}

double sum_of(const std::vector<double>& values) {
  double total = 0;
  for (double v : values) total += v;
  return total;
}

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const Settings s = read_settings(host, dpt_run_config_workload_params(config, variant));
  World world(host);
  const char* plugin = dpt_run_config_slot_plugin(config, variant, "parallel");
  if (plugin == nullptr) sdk::fail(DPT_INVALID_ARGUMENT, "needs a [parallel] plugin");
  dpt_plugin_instance* raw = nullptr;
  sdk::check(host, dpt_plugin_instance_create(runtime, plugin, dpt_run_config_slot_params(config, variant, "parallel"), &raw));
  std::unique_ptr<dpt_plugin_instance, decltype(&dpt_plugin_instance_destroy)> instance(raw, &dpt_plugin_instance_destroy);
  if (std::strcmp(dpt_plugin_instance_info(raw)->descriptor->kind, DPT_KIND_PARALLEL) != 0) {
    sdk::fail(DPT_INVALID_ARGUMENT, std::string("plugin `") + plugin + "` is not a parallel strategy");
  }
  const auto* table = static_cast<const dpt_parallel_v1*>(dpt_plugin_instance_table(raw));
  dpt_instance* handle = dpt_plugin_instance_handle(raw);

  dpt_parallel_topology topology{};
  topology.struct_size = DPT_PARALLEL_TOPOLOGY_SIZE_1_5;
  topology.num_experts = static_cast<uint32_t>(s.experts);
  topology.top_k = static_cast<uint32_t>(s.top_k);
  topology.hidden = static_cast<uint64_t>(s.hidden);
  expert_balance::TopologyArrays placement;
  if (s.placement == "balanced") {
    placement = balanced_placement(s, world);
    topology.placement_offsets = placement.offsets.data();
    topology.placement_ranks = placement.ranks.data();
  }
  sdk::check(host, table->setup(handle, &topology));

  Batch batch = make_batch(s, world.rank());
  sdk::MatrixView tokens(batch.tokens.data(), {kDLFloat, 32, 1}, s.tokens, s.hidden);
  sdk::MatrixView ids(batch.ids.data(), {kDLInt, 32, 1}, s.tokens, s.top_k);
  sdk::MatrixView weights(batch.weights.data(), {kDLFloat, 32, 1}, s.tokens, s.top_k);
  std::vector<float> out(batch.tokens.size());
  sdk::MatrixView out_view(out.data(), {kDLFloat, 32, 1}, s.tokens, s.hidden);
  std::vector<double> slowest;
  double bytes = 0, rows = 0;
  for (int64_t i = 0; i < s.iterations; ++i) {
    if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
    dpt_dispatch_args dispatch{};
    dispatch.struct_size = DPT_DISPATCH_ARGS_SIZE_1_5;
    dispatch.tokens = &tokens.tensor;
    dispatch.expert_ids = &ids.tensor;
    dispatch.weights = &weights.tensor;
    const auto start = Clock::now();
    sdk::check(host, table->dispatch(handle, &dispatch, nullptr));
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<float> outputs = moe_exchange::run_toy_experts(dispatch);
    // The dispatch's views belong to the exchange, which combine consumes: read them first.
    const int64_t received = dispatch.expert_tokens.shape[0];
    sdk::MatrixView outputs_view(outputs.data(), {kDLFloat, 32, 1}, received, s.hidden);
    dpt_combine_args combine{};
    combine.struct_size = DPT_COMBINE_ARGS_SIZE_1_5;
    combine.exchange = dispatch.exchange;
    combine.expert_outputs = &outputs_view.tensor;
    combine.out = &out_view.tensor;
    const auto combine_start = Clock::now();
    sdk::check(host, table->combine(handle, &combine, nullptr));
    seconds += std::chrono::duration<double>(Clock::now() - combine_start).count();
    if (i == 0) {
      check_combined(s, batch, out);
      bytes = static_cast<double>(dispatch.bytes_sent + combine.bytes_sent);
      rows = static_cast<double>(received);
    }
    const std::vector<double> times = world.gather(seconds);
    slowest.push_back(*std::max_element(times.begin(), times.end()));
  }
  const std::vector<double> all_bytes = world.gather(bytes), all_rows = world.gather(rows);
  const double mean_rows = sum_of(all_rows) / world.size();
  std::sort(slowest.begin(), slowest.end());
  host->metric(host, "bytes_per_token", sum_of(all_bytes) / (static_cast<double>(s.tokens) * world.size()), "B",
               DPT_BETTER_LOWER);
  host->metric(host, "load_max_over_mean",
               mean_rows == 0 ? 1.0 : *std::max_element(all_rows.begin(), all_rows.end()) / mean_rows, "",
               DPT_BETTER_LOWER);
  host->metric(host, "dispatch_combine_p50", slowest[slowest.size() / 2], "s", DPT_BETTER_LOWER);
}

}  // namespace

const dpt_workload_decl moe_dispatch_decl = {DPT_WORKLOAD_DECL_SIZE_1_0,
                                             "moe-dispatch",
                                             "MoE dispatch + combine through the parallel slot's plugin over every rank",
                                             kParamDecls,
                                             static_cast<uint32_t>(std::size(kParamDecls)),
                                             kSlots,
                                             static_cast<uint32_t>(std::size(kSlots))};

dpt_error* run_moe_dispatch(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  return sdk::guard(dpt_runtime_host(runtime), [&] { run(runtime, config, variant); });
}

}  // namespace dopant::workloads
