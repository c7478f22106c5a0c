// The replay-full and replay-delta plugins through the core runtime, each on two
// instances (inference and trainer): an 8-turn session of 4 layers, top-8 of 384 experts
// stitches into exactly the ids recorded; delta turns carry a fraction of full turns'
// bytes; a damaged payload is refused naming the session and turn, the rows held
// unchanged. topk offers no replay table.
#include <dopant/router.h>
#include <dopant/replay_session/sessions.hpp>
#include <dopant/runtime.h>
#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include "take_message.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dopant::router_tests {
namespace {

constexpr uint32_t kLayers = 4, kTopK = 8, kExperts = 384, kTurns = 8;

// A runtime with one library loaded, and instances of its plugin.
class Runtime {
 public:
  explicit Runtime(const char* library) {
    const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, 1, DPT_LOG_WARN, 2};
    EXPECT_EQ("", take_message(dpt_runtime_create(&options, &runtime_)));
    EXPECT_EQ("", take_message(dpt_runtime_load_library(runtime_, library)));
  }
  ~Runtime() {
    for (dpt_plugin_instance* instance : instances_) dpt_plugin_instance_destroy(instance);
    dpt_runtime_destroy(runtime_);
  }
  // A new instance of `plugin` and its replay table (NULL when it offers none).
  std::pair<dpt_instance*, const dpt_router_replay_v1*> instance(const char* plugin) {
    dpt_plugin_instance* instance = nullptr;
    EXPECT_EQ("", take_message(dpt_plugin_instance_create(runtime_, plugin, nullptr, &instance)));
    instances_.push_back(instance);
    const dpt_plugin_info* info = dpt_plugin_instance_info(instance);
    return {dpt_plugin_instance_handle(instance),
            static_cast<const dpt_router_replay_v1*>(info->descriptor->get_extension(DPT_EXT_ROUTER_REPLAY))};
  }

 private:
  dpt_runtime* runtime_ = nullptr;
  std::vector<dpt_plugin_instance*> instances_;
};

struct Plugin {
  const char* library;
  const char* id;
};

class ReplayPlugin : public testing::TestWithParam<Plugin> {
 protected:
  ReplayPlugin() : runtime_(GetParam().library) {
    std::tie(inference_, table_) = runtime_.instance(GetParam().id);
    trainer_ = runtime_.instance(GetParam().id).first;
    dpt_replay_session_args open{DPT_REPLAY_SESSION_ARGS_SIZE_1_5, nullptr, "s", kLayers, kTopK, kExperts};
    EXPECT_EQ("", take_message(table_->open(inference_, &open)));
    EXPECT_EQ("", take_message(table_->open(trainer_, &open)));
    std::mt19937 random(23);
    std::vector<int32_t> experts(kExperts);
    std::iota(experts.begin(), experts.end(), 0);
    uint64_t seqlen = 0;
    for (uint32_t t = 0; t < kTurns; ++t) ends_.push_back(seqlen += 40 + 9 * t);
    recorded_.resize(seqlen * kLayers * kTopK);  // [positions, layers, top_k] int32
    for (uint64_t p = 0; p < seqlen; ++p) {
      tokens_.push_back(static_cast<int32_t>(random() % 100000));
      for (uint32_t l = 0; l < kLayers; ++l) {
        std::shuffle(experts.begin(), experts.end(), random);
        std::copy_n(experts.begin(), kTopK, recorded_.begin() + static_cast<std::ptrdiff_t>((p * kLayers + l) * kTopK));
      }
    }
    for (uint32_t l = 0; l < kLayers; ++l) {
      std::vector<int32_t> layer;  // [positions, top_k] int32
      for (uint64_t p = 0; p < seqlen; ++p) {
        const auto first = recorded_.begin() + static_cast<std::ptrdiff_t>((p * kLayers + l) * kTopK);
        layer.insert(layer.end(), first, first + kTopK);
      }
      int64_t shape[] = {static_cast<int64_t>(seqlen), kTopK};
      const DLTensor view{layer.data(), {kDLCPU, 0}, 2, sdk::kInt32, shape, nullptr, 0};
      const dpt_replay_record_args record{DPT_REPLAY_RECORD_ARGS_SIZE_1_5, nullptr, "s", l, 0, &view};
      EXPECT_EQ("", take_message(table_->record(inference_, &record)));
    }
  }

  uint64_t start(uint32_t turn) const { return turn == 0 ? 0 : ends_[turn - 1] - 1; }
  // Emits `turn`; its bytes.
  std::vector<uint8_t> emit(uint32_t turn) {
    dpt_replay_emit_args args{DPT_REPLAY_EMIT_ARGS_SIZE_1_5, nullptr, "s", start(turn), ends_[turn], nullptr, 0};
    EXPECT_EQ("", take_message(table_->emit(inference_, &args)));
    return {args.payload, args.payload + args.payload_size};
  }
  std::string ingest(uint32_t turn, const std::vector<uint8_t>& payload) {
    int64_t count = static_cast<int64_t>(ends_[turn] - 1 - start(turn));
    const DLTensor tokens{tokens_.data() + start(turn), {kDLCPU, 0}, 1, sdk::kInt32, &count, nullptr, 0};
    const uint64_t hash = replay_session::token_hash({tokens_.data(), start(turn)});
    const dpt_replay_ingest_args args{DPT_REPLAY_INGEST_ARGS_SIZE_1_5, nullptr, "s", turn, hash, &tokens,
                                      payload.data(), payload.size()};
    return take_message(table_->ingest(trainer_, &args));
  }
  std::vector<int32_t> held() {
    dpt_replay_rows_args args{DPT_REPLAY_ROWS_ARGS_SIZE_1_5, nullptr, "s", nullptr, 0, 0};
    EXPECT_EQ("", take_message(table_->rows(trainer_, &args)));
    return {args.ids, args.ids + args.rows * kLayers * kTopK};
  }
  std::vector<int32_t> recorded(uint64_t rows) const {
    return {recorded_.begin(), recorded_.begin() + static_cast<std::ptrdiff_t>(rows * kLayers * kTopK)};
  }

  Runtime runtime_;
  dpt_instance* inference_ = nullptr;
  dpt_instance* trainer_ = nullptr;
  const dpt_router_replay_v1* table_ = nullptr;
  std::vector<uint64_t> ends_;
  std::vector<int32_t> tokens_;
  std::vector<int32_t> recorded_;
};

TEST_P(ReplayPlugin, TurnsStitchIntoTheRecording) {
  ASSERT_NE(table_, nullptr);
  uint64_t bytes = 0;
  for (uint32_t turn = 0; turn < kTurns; ++turn) {
    const std::vector<uint8_t> payload = emit(turn);
    bytes += payload.size();
    ASSERT_EQ("", ingest(turn, payload)) << "turn " << turn;
  }
  EXPECT_EQ(held(), recorded(ends_.back() - 1));
  // All rows as base64 int32 each turn against each turn's new rows at 9 bits an id.
  const uint64_t ids_per_row = kLayers * kTopK;
  uint64_t all_rows = 0;
  for (uint64_t end : ends_) all_rows += end - 1;
  const bool full = std::string(GetParam().id) == "replay-full";
  const uint64_t expected = full ? all_rows * ids_per_row * 16 / 3 : kTurns * 44 + (ends_.back() - 1) * ids_per_row * 9 / 8;
  EXPECT_NEAR(static_cast<double>(bytes), static_cast<double>(expected), kTurns * 4.0) << bytes;
}

TEST_P(ReplayPlugin, DamagedPayloadIsRefusedAndTheRowsStay) {
  ASSERT_NE(table_, nullptr);
  for (uint32_t turn = 0; turn < 3; ++turn) ASSERT_EQ("", ingest(turn, emit(turn)));
  const std::vector<int32_t> before = held();
  std::vector<uint8_t> payload = emit(3);
  payload[payload.size() / 2] ^= 0x04;  // base64: another character; packed: a checksum mismatch
  const std::string message = ingest(3, payload);
  EXPECT_EQ(message.rfind("session `s`, turn 3: ", 0), 0u) << message;
  EXPECT_EQ(held(), before);
  EXPECT_EQ("", ingest(3, emit(3))) << "the undamaged turn 3 was refused after the damaged one";
  EXPECT_EQ(held(), recorded(ends_[3] - 1));
}

INSTANTIATE_TEST_SUITE_P(Plugins, ReplayPlugin,
                         testing::Values(Plugin{DOPANT_REPLAY_FULL_PLUGIN, "replay-full"},
                                         Plugin{DOPANT_REPLAY_DELTA_PLUGIN, "replay-delta"}),
                         [](const testing::TestParamInfo<Plugin>& info) {
                           return std::string(info.param.id) == "replay-full" ? "full" : "delta";
                         });

TEST(TopkPluginReplay, OffersNoReplayTable) {
  Runtime runtime(DOPANT_TOPK_PLUGIN);
  EXPECT_EQ(runtime.instance("topk").second, nullptr);
}

}  // namespace
}  // namespace dopant::router_tests
