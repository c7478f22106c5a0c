// ReplayRouter's replay slots (see replay_router.hpp): argument checks naming the field,
// the codec of the plugin, and errors that name the session and turn.
#include "dopant/replay_router/replay_router.hpp"

#include <algorithm>
#include <span>

namespace dopant::replay_router {
namespace {

std::string session_name(const char* session) {
  sdk::require(session != nullptr, "replay args `session` is NULL");
  return session;
}

// The int32 values of a 1-D (`rank` 1) or [rows, columns] (`rank` 2) contiguous CPU tensor.
std::span<const int32_t> int32_values(const DLTensor* tensor, const char* field, int rank) {
  const std::string name = std::string("replay args `") + field + "`";
  sdk::require(tensor != nullptr, name + " is NULL");
  sdk::require(tensor->ndim == rank && sdk::same_dtype(tensor->dtype, sdk::kInt32) && sdk::is_contiguous(*tensor) &&
                   tensor->device.device_type == kDLCPU,
               name + " must be a contiguous " + std::to_string(rank) + "-D int32 CPU tensor, got " +
                   sdk::shape_string(*tensor) + " " + sdk::dtype_name(tensor->dtype));
  return {sdk::data_as<const int32_t>(*tensor), static_cast<size_t>(sdk::element_count(*tensor))};
}

}  // namespace

template <Codec kCodec>
replay_session::Recorder& ReplayRouter<kCodec>::recorder(const char* session) {
  const auto it = recorders_.find(session_name(session));
  if (it == recorders_.end()) sdk::fail(DPT_NOT_FOUND, "session `" + std::string(session) + "` is not open");
  return it->second;
}

template <Codec kCodec>
void ReplayRouter<kCodec>::open(const dpt_replay_session_args& args) {
  const std::string session = session_name(args.session);
  const replay_session::Shape shape{args.layers, args.top_k, args.experts};
  sdk::require(shape.experts <= replay_codec::kMaxExperts, "replay args `experts` passes 2^31");
  stitcher_.open(session, shape);
  recorders_.emplace(session, replay_session::Recorder(shape));
}

template <Codec kCodec>
void ReplayRouter<kCodec>::record(const dpt_replay_record_args& args) {
  recorder(args.session).record(args.layer, args.position, int32_values(args.ids, "ids", 2));
}

template <Codec kCodec>
void ReplayRouter<kCodec>::emit(dpt_replay_emit_args& args) {
  const replay_session::Recorder& from = recorder(args.session);
  if constexpr (kCodec == Codec::sglang_full) {
    const std::string text = replay_codec::encode_sglang(from.emit(0, args.seqlen).ids);
    payload_.assign(text.begin(), text.end());
  } else {
    payload_ = replay_codec::encode_packed(from.emit(args.start_len, args.seqlen));
  }
  args.payload = payload_.data();
  args.payload_size = payload_.size();
}

template <Codec kCodec>
void ReplayRouter<kCodec>::ingest(const dpt_replay_ingest_args& args) {
  const std::string session = session_name(args.session);
  sdk::require(args.payload != nullptr || args.payload_size == 0, "replay args `payload` is NULL");
  const std::span<const uint8_t> bytes(args.payload, args.payload_size);
  const std::span<const int32_t> tokens = int32_values(args.row_tokens, "row_tokens", 1);
  const replay_session::Shape& shape = stitcher_.shape(session);
  replay_codec::RoutingRows rows;
  try {
    if constexpr (kCodec == Codec::sglang_full) {
      // All rows: those held must come first, unchanged; the rest are the turn's.
      const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      std::vector<int32_t> all = replay_codec::decode_sglang(text, shape.layers, shape.top_k, shape.experts);
      const std::span<const int32_t> held = stitcher_.rows(session);
      const size_t per_row = size_t{shape.layers} * shape.top_k;
      sdk::require(all.size() >= held.size(), "payload has " + std::to_string(all.size() / per_row) +
                                                  " rows, fewer than the " + std::to_string(held.size() / per_row) +
                                                  " held");
      const auto differ = std::mismatch(held.begin(), held.end(), all.begin());
      sdk::require(differ.first == held.end(), "row " + std::to_string((differ.first - held.begin()) / per_row) +
                                                   " differs from the row held");
      rows = {held.size() / per_row, shape.layers, shape.top_k, shape.experts,
              std::vector<int32_t>(all.begin() + static_cast<std::ptrdiff_t>(held.size()), all.end())};
    } else {
      rows = replay_codec::decode_packed(bytes);
    }
  } catch (const sdk::Error& e) {
    sdk::fail(e.code(), "session `" + session + "`, turn " + std::to_string(args.turn) + ": " + e.what());
  }
  stitcher_.ingest(session, args.turn, args.prefix_hash, tokens, rows);
}

template <Codec kCodec>
void ReplayRouter<kCodec>::rows(dpt_replay_rows_args& args) {
  const std::string session = session_name(args.session);
  const std::span<const int32_t> held = stitcher_.rows(session);
  const replay_session::Shape& shape = stitcher_.shape(session);
  args.ids = held.data();
  args.rows = held.size() / (uint64_t{shape.layers} * shape.top_k);
  args.held_hash = stitcher_.held_hash(session);
}

template <Codec kCodec>
void ReplayRouter<kCodec>::close(const dpt_replay_session_args& args) {
  const std::string session = session_name(args.session);
  stitcher_.close(session);
  recorders_.erase(session);
}

template class ReplayRouter<Codec::sglang_full>;
template class ReplayRouter<Codec::packed_delta>;

}  // namespace dopant::replay_router
