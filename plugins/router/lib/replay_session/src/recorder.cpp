// Recorder: per layer, the ids of every position in order; a turn's rows gathered from the
// layers into [rows, layers, top_k] (see sessions.hpp).
#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <string>

#include "dopant/replay_session/sessions.hpp"

namespace dopant::replay_session {

uint64_t token_hash(std::span<const int32_t> tokens, uint64_t seed) {
  uint64_t hash = seed;
  for (int32_t token : tokens) {
    const auto value = static_cast<uint32_t>(token);
    for (int shift = 0; shift < 32; shift += 8) {
      hash = (hash ^ ((value >> shift) & 0xFF)) * 0x100000001B3ull;  // FNV-1a 64, byte by byte
    }
  }
  return hash;
}

Recorder::Recorder(Shape shape) : shape_(shape), layers_(shape.layers) {
  sdk::require(shape.layers >= 1 && shape.top_k >= 1 && shape.experts >= 1,
               "recorder: layers, top_k and experts must be at least 1");
}

void Recorder::record(uint32_t layer, uint64_t position, std::span<const int32_t> ids) {
  sdk::require(layer < shape_.layers, "recorder: layer " + std::to_string(layer) + " of " +
                                          std::to_string(shape_.layers));
  std::vector<int32_t>& held = layers_[layer];
  const uint64_t held_positions = held.size() / shape_.top_k;
  sdk::require(position == held_positions, "recorder: layer " + std::to_string(layer) + " holds " +
                                               std::to_string(held_positions) + " positions, not " +
                                               std::to_string(position));
  sdk::require(ids.size() % shape_.top_k == 0, "recorder: ids are not whole rows of top_k");
  held.insert(held.end(), ids.begin(), ids.end());
}

replay_codec::RoutingRows Recorder::emit(uint64_t start_len, uint64_t seqlen) const {
  sdk::require(seqlen >= 1 && start_len <= seqlen - 1,
               "recorder: rows [" + std::to_string(start_len) + ", " + std::to_string(seqlen) + " - 1) are empty or reversed");
  const uint64_t end = seqlen - 1;
  for (uint32_t layer = 0; layer < shape_.layers; ++layer) {
    const uint64_t held = layers_[layer].size() / shape_.top_k;
    sdk::require(held >= end, "recorder: layer " + std::to_string(layer) + " holds " + std::to_string(held) +
                                  " positions, the turn needs " + std::to_string(end));
  }
  replay_codec::RoutingRows rows{start_len, shape_.layers, shape_.top_k, shape_.experts, {}};
  rows.ids.reserve((end - start_len) * shape_.layers * shape_.top_k);
  for (uint64_t position = start_len; position < end; ++position) {
    for (const std::vector<int32_t>& layer : layers_) {
      const auto first = layer.begin() + static_cast<std::ptrdiff_t>(position * shape_.top_k);
      rows.ids.insert(rows.ids.end(), first, first + shape_.top_k);
    }
  }
  return rows;
}

}  // namespace dopant::replay_session
