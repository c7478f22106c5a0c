// Both ends of routing replay for multi-turn sessions, as plain C++: the replay plugins
// expose them through the extension dopant.router.replay/1 (replay_router.hpp).
//
// The inference side records, per session, the experts each MoE layer chose for each token
// position, and at the end of a turn emits rows [start_len, seqlen - 1): the positions the
// trainer does not hold yet (the last token of a turn has not been forwarded). The trainer
// side ingests each turn's rows per session and stitches them into one
// [rows, layers, top_k] array, after validating the turn whole:
//   - the shape (layers, top_k, experts) is the session's;
//   - it starts at the row count the session holds;
//   - its prefix hash, which the client computes over the prompt tokens [0, start_row),
//     equals the hash of the tokens the held rows belong to (the conversation was not
//     edited under the trainer);
//   - every id is in [0, experts), and no id repeats within a row's layer.
// A turn that fails any check is refused whole with sdk::Error naming the session, the
// turn and the first bad row; the session keeps exactly the rows and hash it had.
#pragma once

#include <dopant/replay_codec/codecs.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace dopant::replay_session {

struct Shape {
  uint32_t layers = 1;
  uint32_t top_k = 1;
  uint32_t experts = 1;
};

// FNV-1a 64 of `tokens` as little-endian int32: the prefix hash a client sends. Chained:
// token_hash(b, token_hash(a)) is the hash of a followed by b.
uint64_t token_hash(std::span<const int32_t> tokens, uint64_t seed = 0xCBF29CE484222325ull);

// The inference side of one session.
class Recorder {
 public:
  explicit Recorder(Shape shape);

  // Appends the ids ([tokens, top_k] int32) `layer` chose for positions [position,
  // position + tokens); `position` must be the count that layer already holds.
  void record(uint32_t layer, uint64_t position, std::span<const int32_t> ids);

  // Rows [start_len, seqlen - 1) as one payload's rows; every layer must hold them.
  replay_codec::RoutingRows emit(uint64_t start_len, uint64_t seqlen) const;

 private:
  Shape shape_;
  std::vector<std::vector<int32_t>> layers_;  // per layer: [positions, top_k] int32
};

// The trainer side: every session's stitched rows.
class Stitcher {
 public:
  // Starts `session` with `shape`, holding no rows; refuses a session that exists.
  void open(const std::string& session, Shape shape);
  // Validates turn `turn` of `session` (see above) and appends its rows, or refuses it
  // whole and changes nothing. `row_tokens` are the token ids at the new rows' positions
  // ([rows] int32), which extend the held hash.
  void ingest(const std::string& session, uint64_t turn, uint64_t prefix_hash,
              std::span<const int32_t> row_tokens, const replay_codec::RoutingRows& rows);
  // The held rows of `session`: [rows, layers, top_k] int32, valid until its next ingest.
  std::span<const int32_t> rows(const std::string& session) const;
  // Hash of the tokens the held rows belong to.
  uint64_t held_hash(const std::string& session) const;
  // The shape `session` was opened with.
  const Shape& shape(const std::string& session) const;
  void close(const std::string& session);

 private:
  struct Session {
    Shape shape;
    uint64_t hash;             // token_hash of the tokens of the held rows
    std::vector<int32_t> ids;  // [rows, layers, top_k] int32
  };
  const Session& find(const std::string& session) const;
  std::map<std::string, Session> sessions_;
};

}  // namespace dopant::replay_session
