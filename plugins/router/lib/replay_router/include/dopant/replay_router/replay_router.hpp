// ReplayRouter<codec>: a router that routes as TopkRouter does and offers the replay
// extension (dopant.router.replay/1) over dopant_replay_session's recorder and
// stitcher. Two codecs make the two replay plugins:
//   sglang_full   every turn sends all rows [0, seqlen - 1) as SGLang's base64 int32 (the
//                 behaviour before delta replay); the trainer checks the rows it holds
//                 are the payload's first rows and stitches the rest;
//   packed_delta  every turn sends rows [start_len, seqlen - 1) only, packed.
// A payload that does not decode, or a turn the stitcher refuses, is refused with the
// session and turn named, and the session keeps what it held.
#pragma once

#include <dopant/replay_session/sessions.hpp>
#include <dopant/topk_router/topk_router.hpp>

#include <map>
#include <string>
#include <vector>

namespace dopant::replay_router {

enum class Codec { sglang_full, packed_delta };

template <Codec kCodec>
class ReplayRouter {
 public:
  ReplayRouter(const dpt_host* host, const sdk::Config& config) : topk_(host, config) {}

  void route(const dpt_route_args& args, dpt_stream* stream) { topk_.route(args, stream); }

  void open(const dpt_replay_session_args& args);
  void record(const dpt_replay_record_args& args);
  void emit(dpt_replay_emit_args& args);
  void ingest(const dpt_replay_ingest_args& args);
  void rows(dpt_replay_rows_args& args);
  void close(const dpt_replay_session_args& args);

 private:
  replay_session::Recorder& recorder(const char* session);

  topk_router::TopkRouter topk_;
  std::map<std::string, replay_session::Recorder> recorders_;  // inference side
  replay_session::Stitcher stitcher_;                          // trainer side
  std::vector<uint8_t> payload_;                               // the last emit's bytes
};

extern template class ReplayRouter<Codec::sglang_full>;
extern template class ReplayRouter<Codec::packed_delta>;

}  // namespace dopant::replay_router
