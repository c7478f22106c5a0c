// The router-replay workload: `sessions` synthetic conversations of `turns` turns, each
// turn `new_tokens` positions through `layers` MoE layers of `experts` experts, top_k each.
// The `router` slot's plugin (one offering dopant.router.replay/1) plays both sides on
// two instances:
//   inference  routes each layer's logits, records the ids, emits the turn's payload;
//   trainer    ingests it (decode, validate, stitch), then routes its own logits twice:
//              without replay, and with the stitched ids as recorded_ids.
// Logits are synthetic.hpp uniforms in [-2, 2) plus a popularity offset -skew * ln(1 + e)
// (Zipf-like: expert 0 is the most popular; skew 0 is uniform). The trainer's logits are
// the inference logits plus a bf16-sized perturbation, x + |x| * 2^-8 * u with u uniform in
// [-1, 1) (2^-8 is bf16's unit roundoff), as when the trainer's kernels differ.
// Metrics (per turn: mean over every session's turns):
//   bytes_per_turn, total_bytes          payload bytes on the wire
//   encode_s_per_turn                    emit (record is not timed)
//   decode_stitch_s_per_turn             ingest: decode, validate and stitch, one call
//   encode_ids_per_s, decode_stitch_ids_per_s, memcpy_ids_per_s
//                                        the turn's new ids ([new_tokens, layers, top_k]
//                                        int32) per second of emit, of ingest, and of a
//                                        plain memcpy of that array in the same run
//   route_rows_per_s                     token-layer rows the trainer routes per second
//                                        (replay off; the router's own throughput)
//   peak_rss_bytes                       the process's peak resident memory during the run
//   mismatch_replay_off, mismatch_replay_on
//                                        tokens whose selection differs from inference in
//                                        any layer, as a fraction of tokens; with replay on
//                                        it must be 0, and the run fails if it is not.
#include "router_replay.hpp"

#include "statistics.hpp"
#include "synthetic.hpp"

#include <dopant/router.h>
#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace dopant::workloads {
namespace {

namespace sdk = dopant::sdk;

const dpt_param_decl kSessionsDecl = {DPT_PARAM_DECL_SIZE_1_0, "sessions", DPT_PARAM_INT, "2", "1", "1024",
                                      nullptr, 0, "", "conversations, replayed one after the other"};
const dpt_param_decl kTurnsDecl = {DPT_PARAM_DECL_SIZE_1_0, "turns", DPT_PARAM_INT, "4", "1", "10000",
                                   nullptr, 0, "", "turns per session"};
const dpt_param_decl kNewTokensDecl = {DPT_PARAM_DECL_SIZE_1_0, "new_tokens", DPT_PARAM_INT, "256", "1", "1048576",
                                       nullptr, 0, "", "positions each turn adds"};
const dpt_param_decl kLayersDecl = {DPT_PARAM_DECL_SIZE_1_0, "layers", DPT_PARAM_INT, "4", "1", "1024",
                                    nullptr, 0, "", "MoE layers"};
const dpt_param_decl kExpertsDecl = {DPT_PARAM_DECL_SIZE_1_0, "experts", DPT_PARAM_INT, "64", "1", "65536",
                                     nullptr, 0, "", "experts per layer"};
const dpt_param_decl kTopKDecl = {DPT_PARAM_DECL_SIZE_1_0, "top_k", DPT_PARAM_INT, "4", "1", "1024",
                                  nullptr, 0, "", "experts chosen per token and layer"};
const dpt_param_decl kSkewDecl = {DPT_PARAM_DECL_SIZE_1_0, "skew", DPT_PARAM_FLOAT, "1.0", "0", "16",
                                  nullptr, 0, "", "expert popularity: logit offset -skew * ln(1 + expert)"};
const dpt_param_decl kSeedDecl = {DPT_PARAM_DECL_SIZE_1_0, "seed", DPT_PARAM_INT, "0", "0", nullptr,
                                  nullptr, 0, "", "seed of the synthetic logits and tokens"};
const dpt_param_decl* const kParamDecls[] = {&kSessionsDecl, &kTurnsDecl,  &kNewTokensDecl, &kLayersDecl,
                                             &kExpertsDecl,  &kTopKDecl,   &kSkewDecl,      &kSeedDecl};
const char* const kSlots[] = {"router"};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Settings {
  uint32_t sessions, turns, new_tokens, layers, experts, top_k;
  double skew;
  uint64_t seed;
};

Settings read_settings(const dpt_host* host, const dpt_config* params) {
  const auto integer = [&](const char* name) {
    int64_t value = 0;
    sdk::check(host, host->config_int(host, params, name, &value));
    return value;
  };
  Settings s{};
  s.sessions = static_cast<uint32_t>(integer("sessions"));
  s.turns = static_cast<uint32_t>(integer("turns"));
  s.new_tokens = static_cast<uint32_t>(integer("new_tokens"));
  s.layers = static_cast<uint32_t>(integer("layers"));
  s.experts = static_cast<uint32_t>(integer("experts"));
  s.top_k = static_cast<uint32_t>(integer("top_k"));
  s.seed = static_cast<uint64_t>(integer("seed"));
  sdk::check(host, host->config_float(host, params, "skew", &s.skew));
  if (s.top_k > s.experts) {
    sdk::fail(DPT_INVALID_ARGUMENT, "top_k (" + std::to_string(s.top_k) + ") is more than experts (" +
                                        std::to_string(s.experts) + ")");
  }
  return s;
}

// The prefix hash the header defines: FNV-1a 64 over tokens as little-endian int32,
// continued from `hash`.
uint64_t extend_prefix_hash(uint64_t hash, const int32_t* tokens, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    for (int shift = 0; shift < 32; shift += 8) {
      hash = (hash ^ ((static_cast<uint32_t>(tokens[i]) >> shift) & 0xFF)) * 0x100000001B3ull;
    }
  }
  return hash;
}
constexpr uint64_t kEmptyPrefixHash = 0xCBF29CE484222325ull;

// Peak resident memory: reset by writing 5 to /proc/self/clear_refs, read as VmHWM.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }
double peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

// One plugin instance of the router slot with its route table and replay extension.
class RouterInstance {
 public:
  RouterInstance(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant)
      : host_(dpt_runtime_host(runtime)), instance_(nullptr, &dpt_plugin_instance_destroy) {
    const char* plugin = dpt_run_config_slot_plugin(config, variant, "router");
    if (plugin == nullptr) sdk::fail(DPT_INVALID_ARGUMENT, "needs a [router] plugin");
    dpt_plugin_instance* raw = nullptr;
    sdk::check(host_, dpt_plugin_instance_create(runtime, plugin, dpt_run_config_slot_params(config, variant, "router"), &raw));
    instance_.reset(raw);
    const dpt_plugin_descriptor* descriptor = dpt_plugin_instance_info(raw)->descriptor;
    if (std::strcmp(descriptor->kind, DPT_KIND_ROUTER) != 0) {
      sdk::fail(DPT_INVALID_ARGUMENT, std::string("plugin `") + plugin + "` is not a router");
    }
    router_ = static_cast<const dpt_router_v1*>(dpt_plugin_instance_table(raw));
    replay_ = static_cast<const dpt_router_replay_v1*>(descriptor->get_extension(DPT_EXT_ROUTER_REPLAY));
    if (replay_ == nullptr) {
      sdk::fail(DPT_INVALID_ARGUMENT, std::string("router `") + plugin + "` offers no " + DPT_EXT_ROUTER_REPLAY);
    }
    handle_ = dpt_plugin_instance_handle(raw);
  }

  // ids ([tokens, top_k] int32) for `logits` ([tokens, experts] fp32), forced to `recorded`
  // when it is not null.
  void route(uint32_t layer, std::vector<float>& logits, uint32_t experts, const std::vector<int32_t>* recorded,
             std::vector<int32_t>& ids, std::vector<float>& weights, uint32_t top_k) {
    int64_t logits_shape[] = {static_cast<int64_t>(logits.size() / experts), experts};
    int64_t ids_shape[] = {logits_shape[0], top_k};
    ids.resize(logits.size() / experts * top_k);
    weights.resize(ids.size());
    DLTensor logits_view{logits.data(), {kDLCPU, 0}, 2, sdk::kFloat32, logits_shape, nullptr, 0};
    DLTensor recorded_view{recorded ? const_cast<int32_t*>(recorded->data()) : nullptr, {kDLCPU, 0}, 2, sdk::kInt32,
                           ids_shape, nullptr, 0};
    DLTensor ids_view{ids.data(), {kDLCPU, 0}, 2, sdk::kInt32, ids_shape, nullptr, 0};
    DLTensor weights_view{weights.data(), {kDLCPU, 0}, 2, sdk::kFloat32, ids_shape, nullptr, 0};
    dpt_route_args args = DPT_ROUTE_ARGS_INIT;
    args.layer = layer;
    args.top_k = top_k;
    args.logits = &logits_view;
    args.recorded_ids = recorded ? &recorded_view : nullptr;
    args.expert_ids = &ids_view;
    args.weights = &weights_view;
    sdk::check(host_, router_->route(handle_, &args, nullptr));
  }

  const dpt_router_replay_v1& replay() const { return *replay_; }
  dpt_instance* handle() const { return handle_; }
  const dpt_host* host() const { return host_; }

 private:
  const dpt_host* host_;
  std::unique_ptr<dpt_plugin_instance, decltype(&dpt_plugin_instance_destroy)> instance_;
  const dpt_router_v1* router_ = nullptr;
  const dpt_router_replay_v1* replay_ = nullptr;
  dpt_instance* handle_ = nullptr;
};

// Router logits of `tokens` positions from `first` for one session and layer; `trained`
// adds the trainer's perturbation.
void fill_logits(const Settings& s, uint32_t session, uint32_t layer, uint64_t first, uint32_t tokens, bool trained,
                 std::vector<float>& logits) {
  logits.resize(uint64_t{tokens} * s.experts);
  const uint64_t stream = 1 + 2 * (uint64_t{session} * s.layers + layer);
  for (uint64_t t = 0; t < tokens; ++t) {
    for (uint32_t e = 0; e < s.experts; ++e) {
      const uint64_t index = (first + t) * s.experts + e;
      float x = 2.0f * synthetic_uniform(s.seed, stream, index) - static_cast<float>(s.skew * std::log1p(e));
      if (trained) x += std::fabs(x) * 0x1p-8f * synthetic_uniform(s.seed, stream + 1, index);
      logits[t * s.experts + e] = x;
    }
  }
}

// Whether two [top_k] selections name different sets of experts.
bool selection_differs(const int32_t* a, const int32_t* b, uint32_t top_k) {
  std::vector<int32_t> x(a, a + top_k), y(b, b + top_k);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x != y;
}

struct Totals {
  double bytes = 0, encode_s = 0, ingest_s = 0, memcpy_s = 0, route_s = 0;
  uint64_t turns = 0, tokens = 0, new_ids = 0, routed_rows = 0, mismatched_off = 0, mismatched_on = 0;
};

// One session, both sides, every turn.
void run_session(const Settings& s, uint32_t session, RouterInstance& inference, RouterInstance& trainer,
                 Totals& totals) {
  const dpt_host* host = inference.host();
  const std::string name = "session-" + std::to_string(session);
  const dpt_replay_session_args open{DPT_REPLAY_SESSION_ARGS_SIZE_1_5, nullptr, name.c_str(), s.layers, s.top_k,
                                     s.experts};
  sdk::check(host, inference.replay().open(inference.handle(), &open));
  sdk::check(host, trainer.replay().open(trainer.handle(), &open));
  std::vector<int32_t> tokens;
  std::vector<float> logits, weights;
  std::vector<int32_t> routed(uint64_t{s.new_tokens} * s.top_k), replayed(routed.size()), forced(routed.size());
  std::vector<std::vector<int32_t>> chosen(s.layers);  // the inference ids of this turn, per layer
  std::vector<int32_t> copy_source(uint64_t{s.new_tokens} * s.layers * s.top_k), copy_target(copy_source.size());
  uint64_t held_hash = kEmptyPrefixHash;
  for (uint32_t turn = 0; turn < s.turns; ++turn) {
    if (host->is_cancelled(host)) sdk::fail(DPT_CANCELLED, "cancelled");
    const uint64_t start = uint64_t{turn} * s.new_tokens;
    for (uint32_t t = 0; t < s.new_tokens; ++t) {
      tokens.push_back(static_cast<int32_t>(splitmix64_mix(s.seed ^ (uint64_t{session} << 40) ^ (start + t)) % 50000));
    }
    // Inference: route and record every layer, then emit rows [start, start + new_tokens).
    for (uint32_t layer = 0; layer < s.layers; ++layer) {
      fill_logits(s, session, layer, start, s.new_tokens, false, logits);
      inference.route(layer, logits, s.experts, nullptr, chosen[layer], weights, s.top_k);
      int64_t shape[] = {s.new_tokens, s.top_k};
      const DLTensor ids{chosen[layer].data(), {kDLCPU, 0}, 2, sdk::kInt32, shape, nullptr, 0};
      const dpt_replay_record_args record{DPT_REPLAY_RECORD_ARGS_SIZE_1_5, nullptr, name.c_str(), layer, start, &ids};
      sdk::check(host, inference.replay().record(inference.handle(), &record));
    }
    dpt_replay_emit_args emit{DPT_REPLAY_EMIT_ARGS_SIZE_1_5, nullptr, name.c_str(), start, start + s.new_tokens + 1,
                              nullptr, 0};
    auto clock = Clock::now();
    sdk::check(host, inference.replay().emit(inference.handle(), &emit));
    totals.encode_s += seconds_since(clock);
    totals.bytes += static_cast<double>(emit.payload_size);

    // Trainer: ingest the payload with the client's hash of the tokens before the turn.
    int64_t row_count = s.new_tokens;
    const DLTensor row_tokens{tokens.data() + start, {kDLCPU, 0}, 1, sdk::kInt32, &row_count, nullptr, 0};
    const dpt_replay_ingest_args ingest{DPT_REPLAY_INGEST_ARGS_SIZE_1_5, nullptr, name.c_str(), turn, held_hash,
                                       &row_tokens, emit.payload, emit.payload_size};
    clock = Clock::now();
    sdk::check(host, trainer.replay().ingest(trainer.handle(), &ingest));
    totals.ingest_s += seconds_since(clock);
    held_hash = extend_prefix_hash(held_hash, tokens.data() + start, s.new_tokens);
    dpt_replay_rows_args rows{DPT_REPLAY_ROWS_ARGS_SIZE_1_5, nullptr, name.c_str(), nullptr, 0, 0};
    sdk::check(host, trainer.replay().rows(trainer.handle(), &rows));
    if (rows.rows != start + s.new_tokens) sdk::fail(DPT_INTERNAL, "the trainer holds " + std::to_string(rows.rows) + " rows");

    // The same turn's array copied plainly, as the bound for encode and decode.
    std::copy(rows.ids + start * s.layers * s.top_k, rows.ids + rows.rows * s.layers * s.top_k, copy_source.begin());
    clock = Clock::now();
    std::memcpy(copy_target.data(), copy_source.data(), copy_source.size() * sizeof(int32_t));
    totals.memcpy_s += seconds_since(clock);
    if (copy_target != copy_source) sdk::fail(DPT_INTERNAL, "memcpy lost the ids");

    // Training: route the perturbed logits without replay, then with the stitched ids.
    std::vector<uint8_t> off(s.new_tokens, 0), on(s.new_tokens, 0);
    for (uint32_t layer = 0; layer < s.layers; ++layer) {
      fill_logits(s, session, layer, start, s.new_tokens, true, logits);
      clock = Clock::now();
      trainer.route(layer, logits, s.experts, nullptr, routed, weights, s.top_k);
      totals.route_s += seconds_since(clock);
      for (uint32_t t = 0; t < s.new_tokens; ++t) {
        const int32_t* row = rows.ids + ((start + t) * s.layers + layer) * s.top_k;
        std::copy(row, row + s.top_k, forced.begin() + uint64_t{t} * s.top_k);
      }
      trainer.route(layer, logits, s.experts, &forced, replayed, weights, s.top_k);
      for (uint32_t t = 0; t < s.new_tokens; ++t) {
        const int32_t* inferred = chosen[layer].data() + uint64_t{t} * s.top_k;
        off[t] |= selection_differs(routed.data() + uint64_t{t} * s.top_k, inferred, s.top_k);
        on[t] |= !std::equal(inferred, inferred + s.top_k, replayed.data() + uint64_t{t} * s.top_k);
      }
    }
    totals.mismatched_off += static_cast<uint64_t>(std::count(off.begin(), off.end(), 1));
    totals.mismatched_on += static_cast<uint64_t>(std::count(on.begin(), on.end(), 1));
    totals.turns += 1;
    totals.tokens += s.new_tokens;
    totals.new_ids += copy_source.size();
    totals.routed_rows += uint64_t{s.new_tokens} * s.layers;
  }
  sdk::check(host, inference.replay().close(inference.handle(), &open));
  sdk::check(host, trainer.replay().close(trainer.handle(), &open));
}

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const Settings s = read_settings(host, dpt_run_config_workload_params(config, variant));
  reset_peak_rss();
  RouterInstance inference(runtime, config, variant), trainer(runtime, config, variant);
  Totals totals;
  for (uint32_t session = 0; session < s.sessions; ++session) run_session(s, session, inference, trainer, totals);

  const double turns = static_cast<double>(totals.turns), ids = static_cast<double>(totals.new_ids);
  const double tokens = static_cast<double>(totals.tokens);
  host->metric(host, "bytes_per_turn", totals.bytes / turns, "B", DPT_BETTER_LOWER);
  host->metric(host, "total_bytes", totals.bytes, "B", DPT_BETTER_LOWER);
  host->metric(host, "encode_s_per_turn", totals.encode_s / turns, "s", DPT_BETTER_LOWER);
  host->metric(host, "decode_stitch_s_per_turn", totals.ingest_s / turns, "s", DPT_BETTER_LOWER);
  host->metric(host, "encode_ids_per_s", ids / totals.encode_s, "1/s", DPT_BETTER_HIGHER);
  host->metric(host, "decode_stitch_ids_per_s", ids / totals.ingest_s, "1/s", DPT_BETTER_HIGHER);
  host->metric(host, "memcpy_ids_per_s", ids / totals.memcpy_s, "1/s", DPT_BETTER_HIGHER);
  host->metric(host, "route_rows_per_s", static_cast<double>(totals.routed_rows) / totals.route_s, "1/s",
               DPT_BETTER_HIGHER);
  host->metric(host, "peak_rss_bytes", peak_rss_bytes(), "B", DPT_BETTER_LOWER);
  host->metric(host, "mismatch_replay_off", static_cast<double>(totals.mismatched_off) / tokens, "", DPT_BETTER_LOWER);
  host->metric(host, "mismatch_replay_on", static_cast<double>(totals.mismatched_on) / tokens, "", DPT_BETTER_LOWER);
  if (totals.mismatched_on != 0) {
    sdk::fail(DPT_INTERNAL, std::to_string(totals.mismatched_on) + " tokens routed otherwise than recorded with replay on");
  }
}

}  // namespace

const dpt_workload_decl router_replay_decl = {
    DPT_WORKLOAD_DECL_SIZE_1_0,
    "router-replay",
    "multi-turn MoE sessions through the router slot's replay plugin: payload bytes, codec times, routing mismatch",
    kParamDecls,
    static_cast<uint32_t>(std::size(kParamDecls)),
    kSlots,
    static_cast<uint32_t>(std::size(kSlots))};

dpt_error* run_router_replay(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  return sdk::guard(dpt_runtime_host(runtime), [&] { run(runtime, config, variant); });
}

}  // namespace dopant::workloads
