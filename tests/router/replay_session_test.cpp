// Multi-turn routing replay end to end in plain C++: the recorder's turns, sent as packed
// deltas, stitch into exactly the rows a full recording gives, and a delta turn is a
// fraction of a full one; then one test per validation failure of the stitcher, each
// proving the session keeps exactly its rows and hash, and the recorder's own refusals.
#include <dopant/replay_codec/codecs.hpp>
#include <dopant/replay_session/sessions.hpp>
#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace dopant::router_tests {
namespace {

using replay_codec::RoutingRows;
using replay_session::Recorder;
using replay_session::Shape;
using replay_session::Stitcher;

constexpr Shape kShape{3, 2, 16};

// A conversation of `turns` turns: the tokens, and the recorder that routed them (each
// layer picks top_k distinct experts per position). Turn t ends at seqlen ends[t].
struct Conversation {
  std::vector<int32_t> tokens;
  std::vector<uint64_t> ends;
  Recorder recorder{kShape};

  explicit Conversation(int turns) {
    std::mt19937 random(17);
    std::vector<int32_t> experts(kShape.experts);
    std::iota(experts.begin(), experts.end(), 0);
    uint64_t seqlen = 0;
    for (int t = 0; t < turns; ++t) {
      seqlen += 5 + static_cast<uint64_t>(t) * 3;
      ends.push_back(seqlen);
    }
    for (uint64_t position = 0; position < seqlen; ++position) {
      tokens.push_back(static_cast<int32_t>(random() % 50000));
      for (uint32_t layer = 0; layer < kShape.layers; ++layer) {
        std::shuffle(experts.begin(), experts.end(), random);
        recorder.record(layer, position, {experts.data(), kShape.top_k});
      }
    }
  }
  // The turn's delta rows [start_len, seqlen - 1) and its prefix hash and tokens.
  RoutingRows delta(int turn) const { return recorder.emit(start(turn), ends[turn]); }
  uint64_t start(int turn) const { return turn == 0 ? 0 : ends[turn - 1] - 1; }
  uint64_t prefix_hash(int turn) const { return replay_session::token_hash({tokens.data(), start(turn)}); }
  std::span<const int32_t> row_tokens(int turn) const {
    return {tokens.data() + start(turn), ends[turn] - 1 - start(turn)};
  }
};

TEST(ReplaySession, PackedDeltasStitchIntoTheFullRecording) {
  const Conversation c(6);
  Stitcher stitcher;
  stitcher.open("s", kShape);
  uint64_t delta_bytes = 0, full_bytes = 0;
  for (int turn = 0; turn < 6; ++turn) {
    const std::vector<uint8_t> wire = replay_codec::encode_packed(c.delta(turn));
    delta_bytes += wire.size();
    full_bytes += replay_codec::encode_sglang(c.recorder.emit(0, c.ends[turn]).ids).size();
    stitcher.ingest("s", turn, c.prefix_hash(turn), c.row_tokens(turn), replay_codec::decode_packed(wire));
  }
  const RoutingRows full = c.recorder.emit(0, c.ends.back());
  EXPECT_TRUE(std::ranges::equal(stitcher.rows("s"), full.ids));
  EXPECT_EQ(stitcher.held_hash("s"), replay_session::token_hash({c.tokens.data(), c.ends.back() - 1}));
  // 4 bits an id against base64 int32 of every row every turn.
  EXPECT_LT(delta_bytes * 5, full_bytes) << delta_bytes << " vs " << full_bytes;
}

// A session that has taken turns 0 and 1, and turn 2 to break.
class RejectedTurn : public testing::Test {
 protected:
  RejectedTurn() {
    stitcher_.open("s", kShape);
    for (int turn = 0; turn < 2; ++turn) {
      stitcher_.ingest("s", turn, c_.prefix_hash(turn), c_.row_tokens(turn), c_.delta(turn));
    }
    rows_before_.assign(stitcher_.rows("s").begin(), stitcher_.rows("s").end());
    hash_before_ = stitcher_.held_hash("s");
  }
  // The refusal message of turn 2 sent as `rows` with `prefix_hash` and `tokens`; checks
  // that the session is unchanged.
  std::string refusal(const RoutingRows& rows, uint64_t prefix_hash, std::span<const int32_t> tokens) {
    std::string message;
    try {
      stitcher_.ingest("s", 2, prefix_hash, tokens, rows);
    } catch (const sdk::Error& e) {
      message = e.what();
    }
    EXPECT_TRUE(std::ranges::equal(stitcher_.rows("s"), rows_before_)) << "the rejected turn changed the rows";
    EXPECT_EQ(stitcher_.held_hash("s"), hash_before_) << "the rejected turn changed the hash";
    return message;
  }
  std::string refusal(const RoutingRows& rows) { return refusal(rows, c_.prefix_hash(2), c_.row_tokens(2)); }

  const Conversation c_{3};
  Stitcher stitcher_;
  std::vector<int32_t> rows_before_;
  uint64_t hash_before_ = 0;
};

// Turn 2 unbroken is accepted, so each refusal below is its one defect's doing.
TEST_F(RejectedTurn, UnbrokenTurnIsAccepted) {
  stitcher_.ingest("s", 2, c_.prefix_hash(2), c_.row_tokens(2), c_.delta(2));
  EXPECT_TRUE(std::ranges::equal(stitcher_.rows("s"), c_.recorder.emit(0, c_.ends[2]).ids));
}

TEST_F(RejectedTurn, OtherShape) {
  RoutingRows rows = c_.delta(2);
  rows.experts = 32;
  EXPECT_EQ(refusal(rows), "session `s`, turn 2: shape 3 layers x top-2 of 32 experts differs from the session's 3 x top-2 of 16");
  // The stitched rows stay as they were, whatever was tried.
  EXPECT_EQ(rows_before_.size(), (c_.ends[1] - 1) * 6);
}

TEST_F(RejectedTurn, StartIsNotTheHeldRowCount) {
  const RoutingRows rows = c_.recorder.emit(c_.start(2) - 1, c_.ends[2]);  // repeats a held row
  EXPECT_EQ(refusal(rows, c_.prefix_hash(2), {c_.tokens.data() + rows.start_row, rows.rows()}),
            "session `s`, turn 2: starts at row 11, but the session holds 12 rows");
}

TEST_F(RejectedTurn, PromptHashDiffers) {
  std::vector<int32_t> edited(c_.tokens.begin(), c_.tokens.begin() + c_.start(2));
  edited[4] += 1;  // the client edited an earlier message
  const std::string message = refusal(c_.delta(2), replay_session::token_hash(edited), c_.row_tokens(2));
  EXPECT_NE(message.find("session `s`, turn 2: prompt hash 0x"), std::string::npos) << message;
  EXPECT_NE(message.find("differs from the hash of the 12 tokens held"), std::string::npos) << message;
}

TEST_F(RejectedTurn, TokenCountDiffers) {
  const std::span<const int32_t> tokens = c_.row_tokens(2);
  EXPECT_EQ(refusal(c_.delta(2), c_.prefix_hash(2), tokens.first(tokens.size() - 1)),
            "session `s`, turn 2: 10 tokens sent for 11 rows");
}

TEST_F(RejectedTurn, IdOutOfRangeNamesTheFirstBadRow) {
  RoutingRows rows = c_.delta(2);
  rows.ids[3 * 6 + 2 * 2 + 1] = 16;  // payload row 3, layer 2, slot 1
  rows.ids[5 * 6] = -1;
  EXPECT_EQ(refusal(rows), "session `s`, turn 2: row 15, layer 2: expert 16 is outside [0, 16)");
}

TEST_F(RejectedTurn, RepeatedIdWithinARowLayer) {
  RoutingRows rows = c_.delta(2);
  rows.ids[7 * 6 + 1 * 2 + 1] = rows.ids[7 * 6 + 1 * 2];  // payload row 7, layer 1
  EXPECT_EQ(refusal(rows), "session `s`, turn 2: row 19, layer 1: expert " + std::to_string(rows.ids[7 * 6 + 2]) +
                               " appears twice");
}

TEST(ReplaySession, UnknownAndDuplicateSessionsAreRefused) {
  Stitcher stitcher;
  stitcher.open("a", kShape);
  try {
    stitcher.open("a", kShape);
    ADD_FAILURE() << "a second open of `a` was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_ALREADY_EXISTS);
  }
  try {
    stitcher.ingest("b", 0, replay_session::token_hash({}), {}, RoutingRows{0, 3, 2, 16, {}});
    ADD_FAILURE() << "a turn of an unopened session was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_NOT_FOUND);
    EXPECT_STREQ(e.what(), "session `b` is not open");
  }
}

TEST(ReplayRecorder, RefusesGapsAndRowsItDoesNotHold) {
  Recorder recorder(kShape);
  const int32_t ids[] = {1, 2, 3, 4};  // [2 positions, top-2]
  recorder.record(0, 0, ids);
  try {
    recorder.record(0, 3, ids);
    ADD_FAILURE() << "a gap in layer 0 was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "recorder: layer 0 holds 2 positions, not 3");
  }
  try {
    recorder.emit(0, 3);
    ADD_FAILURE() << "rows no layer 1 holds were emitted";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "recorder: layer 1 holds 0 positions, the turn needs 2");
  }
}

}  // namespace
}  // namespace dopant::router_tests
