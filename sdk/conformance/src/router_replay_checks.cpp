// Checks of the replay extension "dopant.router.replay/1", run on routers whose
// descriptor offers it: a two-turn session (2 layers, top-2 of 8 experts, 6 and then 3
// more positions) recorded on one instance and ingested on another stitches into exactly
// the ids recorded, with the prefix hash of the tokens; a turn whose prefix hash is wrong
// is refused, and the trainer keeps what it held.
#include <dopant/router.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace dopant::conformance {

namespace {

constexpr uint32_t kLayers = 2, kTopK = 2, kExperts = 8;
constexpr uint64_t kTurnEnds[] = {6, 9};  // seqlen after each turn

// FNV-1a 64 of tokens as little-endian int32, as the header defines the prefix hash.
uint64_t prefix_hash(const std::vector<int32_t>& tokens, size_t count) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < count; ++i) {
    for (int shift = 0; shift < 32; shift += 8) {
      hash = (hash ^ ((static_cast<uint32_t>(tokens[i]) >> shift) & 0xFF)) * 0x100000001B3ull;
    }
  }
  return hash;
}

// Both sides of one session, on two instances of the plugin.
class Session {
 public:
  explicit Session(const Target& target) : inference_(target), trainer_(target) {
    table_ = static_cast<const dpt_router_replay_v1*>(target.info->descriptor->get_extension(DPT_EXT_ROUTER_REPLAY));
    dpt_replay_session_args open{DPT_REPLAY_SESSION_ARGS_SIZE_1_5, nullptr, "conformance", kLayers, kTopK, kExperts};
    EXPECT_EQ("", ok_or_message(table_->open(inference_.handle(), &open)));
    EXPECT_EQ("", ok_or_message(table_->open(trainer_.handle(), &open)));
    // Position p, layer l picks experts (p + l) % 8 and (p + l + 3) % 8; token p is 100 + p.
    for (uint64_t p = 0; p < kTurnEnds[1]; ++p) {
      tokens_.push_back(static_cast<int32_t>(100 + p));
      for (uint32_t l = 0; l < kLayers; ++l) {
        recorded_.push_back(static_cast<int32_t>((p + l) % kExperts));
        recorded_.push_back(static_cast<int32_t>((p + l + 3) % kExperts));
      }
    }
    for (uint32_t l = 0; l < kLayers; ++l) {
      std::vector<int32_t> layer_ids;  // [positions, top_k] int32
      for (uint64_t p = 0; p < kTurnEnds[1]; ++p) {
        layer_ids.push_back(recorded_[(p * kLayers + l) * kTopK]);
        layer_ids.push_back(recorded_[(p * kLayers + l) * kTopK + 1]);
      }
      int64_t shape[] = {static_cast<int64_t>(kTurnEnds[1]), kTopK};
      const DLTensor view{layer_ids.data(), {kDLCPU, 0}, 2, sdk::kInt32, shape, nullptr, 0};
      const dpt_replay_record_args record{DPT_REPLAY_RECORD_ARGS_SIZE_1_5, nullptr, "conformance", l, 0, &view};
      EXPECT_EQ("", ok_or_message(table_->record(inference_.handle(), &record)));
    }
  }

  // Emits turn `turn` on the inference side and ingests it on the trainer with `hash`.
  std::string send(int turn, uint64_t hash) {
    const uint64_t start = turn == 0 ? 0 : kTurnEnds[turn - 1] - 1, end = kTurnEnds[turn] - 1;
    dpt_replay_emit_args emit{DPT_REPLAY_EMIT_ARGS_SIZE_1_5, nullptr, "conformance", start, kTurnEnds[turn], nullptr, 0};
    const std::string emitted = ok_or_message(table_->emit(inference_.handle(), &emit));
    if (!emitted.empty()) return emitted;
    int64_t count = static_cast<int64_t>(end - start);
    const DLTensor tokens{tokens_.data() + start, {kDLCPU, 0}, 1, sdk::kInt32, &count, nullptr, 0};
    const dpt_replay_ingest_args ingest{DPT_REPLAY_INGEST_ARGS_SIZE_1_5, nullptr, "conformance",
                                       static_cast<uint64_t>(turn), hash, &tokens, emit.payload, emit.payload_size};
    return ok_or_message(table_->ingest(trainer_.handle(), &ingest));
  }
  uint64_t hash_before(int turn) const { return prefix_hash(tokens_, turn == 0 ? 0 : kTurnEnds[turn - 1] - 1); }

  // The trainer's stitched rows.
  std::vector<int32_t> held() const {
    dpt_replay_rows_args rows{DPT_REPLAY_ROWS_ARGS_SIZE_1_5, nullptr, "conformance", nullptr, 0, 0};
    EXPECT_EQ("", ok_or_message(table_->rows(trainer_.handle(), &rows)));
    if (rows.rows == 0) return {};
    return {rows.ids, rows.ids + rows.rows * kLayers * kTopK};
  }
  // Recorded rows [0, rows) as [rows, layers, top_k].
  std::vector<int32_t> recorded(uint64_t rows) const {
    return {recorded_.begin(), recorded_.begin() + static_cast<std::ptrdiff_t>(rows * kLayers * kTopK)};
  }

 private:
  PluginInstance inference_, trainer_;
  const dpt_router_replay_v1* table_ = nullptr;
  std::vector<int32_t> tokens_;
  std::vector<int32_t> recorded_;  // [positions, layers, top_k] int32
};

void check_round_trip(const Target& target) {
  Session session(target);
  ASSERT_EQ("", session.send(0, session.hash_before(0)));
  EXPECT_EQ(session.held(), session.recorded(kTurnEnds[0] - 1));
  ASSERT_EQ("", session.send(1, session.hash_before(1)));
  EXPECT_EQ(session.held(), session.recorded(kTurnEnds[1] - 1)) << "two turns did not stitch into the recording";
}

void check_refuses_changed_prefix(const Target& target) {
  Session session(target);
  ASSERT_EQ("", session.send(0, session.hash_before(0)));
  EXPECT_NE("", session.send(1, session.hash_before(1) ^ 1)) << "a turn with another prompt hash was accepted";
  EXPECT_EQ(session.held(), session.recorded(kTurnEnds[0] - 1)) << "the refused turn changed the rows held";
}

}  // namespace

void register_router_replay_checks(const Target& target) {
  add_check(target, "router_replay_round_trip", [target] { check_round_trip(target); });
  add_check(target, "router_replay_refuses_changed_prefix", [target] { check_refuses_changed_prefix(target); });
}

}  // namespace dopant::conformance
