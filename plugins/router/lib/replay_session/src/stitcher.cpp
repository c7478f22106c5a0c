// Stitcher: validates a whole turn before touching the session, then appends (see
// sessions.hpp for the checks and their order).
#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

#include "dopant/replay_session/sessions.hpp"

namespace dopant::replay_session {
namespace {

std::string hex(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

void Stitcher::open(const std::string& session, Shape shape) {
  sdk::require(shape.layers >= 1 && shape.top_k >= 1 && shape.experts >= 1,
               "session `" + session + "`: layers, top_k and experts must be at least 1");
  if (!sessions_.emplace(session, Session{shape, token_hash({}), {}}).second) {
    sdk::fail(DPT_ALREADY_EXISTS, "session `" + session + "` is already open");
  }
}

const Stitcher::Session& Stitcher::find(const std::string& session) const {
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) sdk::fail(DPT_NOT_FOUND, "session `" + session + "` is not open");
  return it->second;
}

void Stitcher::ingest(const std::string& session, uint64_t turn, uint64_t prefix_hash,
                      std::span<const int32_t> row_tokens, const replay_codec::RoutingRows& rows) {
  const Session& held = find(session);
  const std::string where = "session `" + session + "`, turn " + std::to_string(turn) + ": ";
  const auto refuse = [&](const std::string& what) { sdk::fail(DPT_INVALID_ARGUMENT, where + what); };
  const Shape& shape = held.shape;
  if (rows.layers != shape.layers || rows.top_k != shape.top_k || rows.experts != shape.experts) {
    refuse("shape " + std::to_string(rows.layers) + " layers x top-" + std::to_string(rows.top_k) + " of " +
           std::to_string(rows.experts) + " experts differs from the session's " + std::to_string(shape.layers) +
           " x top-" + std::to_string(shape.top_k) + " of " + std::to_string(shape.experts));
  }
  const uint64_t per_row = uint64_t{shape.layers} * shape.top_k;
  const uint64_t held_rows = held.ids.size() / per_row;
  if (rows.ids.size() % per_row != 0) refuse("ids are not whole rows of layers x top_k");
  if (rows.start_row != held_rows) {
    refuse("starts at row " + std::to_string(rows.start_row) + ", but the session holds " +
           std::to_string(held_rows) + " rows");
  }
  if (prefix_hash != held.hash) {
    refuse("prompt hash " + hex(prefix_hash) + " differs from the hash of the " + std::to_string(held_rows) +
           " tokens held (" + hex(held.hash) + "): the conversation changed");
  }
  if (row_tokens.size() != rows.rows()) {
    refuse(std::to_string(row_tokens.size()) + " tokens sent for " + std::to_string(rows.rows()) + " rows");
  }
  for (uint64_t r = 0; r < rows.rows(); ++r) {
    for (uint32_t layer = 0; layer < shape.layers; ++layer) {
      const int32_t* slot = rows.ids.data() + r * per_row + uint64_t{layer} * shape.top_k;  // [top_k]
      for (uint32_t k = 0; k < shape.top_k; ++k) {
        const bool in_range = slot[k] >= 0 && static_cast<uint32_t>(slot[k]) < shape.experts;
        if (in_range && std::find(slot, slot + k, slot[k]) == slot + k) continue;
        refuse("row " + std::to_string(rows.start_row + r) + ", layer " + std::to_string(layer) + ": expert " +
               std::to_string(slot[k]) +
               (in_range ? " appears twice" : " is outside [0, " + std::to_string(shape.experts) + ")"));
      }
    }
  }
  // Every check passed: append (a failed allocation leaves the vector as it was) and
  // extend the hash.
  Session& session_state = sessions_.find(session)->second;
  session_state.ids.insert(session_state.ids.end(), rows.ids.begin(), rows.ids.end());
  session_state.hash = token_hash(row_tokens, session_state.hash);
}

std::span<const int32_t> Stitcher::rows(const std::string& session) const { return find(session).ids; }

uint64_t Stitcher::held_hash(const std::string& session) const { return find(session).hash; }

const Shape& Stitcher::shape(const std::string& session) const { return find(session).shape; }

void Stitcher::close(const std::string& session) {
  find(session);
  sessions_.erase(session);
}

}  // namespace dopant::replay_session
