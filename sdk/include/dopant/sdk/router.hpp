// dopant SDK — RouterAdapter<T>: the static dpt_router_v1 table of a C++ class, and
// RouterReplayAdapter<T>: its dpt_router_replay_v1 extension table.
//
//   class MyRouter {
//    public:
//     MyRouter(const dpt_host* host, const sdk::Config& config);
//     void route(const dpt_route_args& args, dpt_stream* stream);
//     // With replay (describe<RouterAdapter<MyRouter>, &router_replay_extension<MyRouter>>):
//     void open(const dpt_replay_session_args& args);
//     void record(const dpt_replay_record_args& args);
//     void emit(dpt_replay_emit_args& args);      // fills payload, payload_size
//     void ingest(const dpt_replay_ingest_args& args);
//     void rows(dpt_replay_rows_args& args);      // fills ids, rows, held_hash
//     void close(const dpt_replay_session_args& args);
//   };
#pragma once

#include <dopant/router.h>

#include "instance.hpp"
#include "structs.hpp"

#include <cstring>

namespace dopant::sdk {

template <typename T>
struct RouterAdapter {
  using Table = dpt_router_v1;
  static constexpr const char* kind = DPT_KIND_ROUTER;

  static dpt_error* route(dpt_instance* handle, const dpt_route_args* args,
                          dpt_stream* stream) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.route(read_struct(args, DPT_ROUTE_ARGS_SIZE_1_5, "route args"), stream);
    });
  }

  static constexpr dpt_router_v1 table{DPT_ROUTER_V1_SIZE_1_5, &create_instance<T>,
                                    &destroy_instance<T>, &route};
};

template <typename T>
struct RouterReplayAdapter {
  // One slot: the input struct read and widened, handed to `method`, and for in/out
  // structs written back up to the caller's size.
  template <typename Args, void (T::*Method)(const Args&)>
  static dpt_error* in(dpt_instance* handle, const Args* args, size_t min_size, const char* what) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) { (self.*Method)(read_struct(args, min_size, what)); });
  }
  template <typename Args, void (T::*Method)(Args&)>
  static dpt_error* in_out(dpt_instance* handle, Args* args, size_t min_size, const char* what) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      Args copy = read_struct(static_cast<const Args*>(args), min_size, what);
      (self.*Method)(copy);
      write_struct(args, copy, min_size, what);
    });
  }

  static dpt_error* open(dpt_instance* h, const dpt_replay_session_args* a) noexcept {
    return in<dpt_replay_session_args, &T::open>(h, a, DPT_REPLAY_SESSION_ARGS_SIZE_1_5, "replay open args");
  }
  static dpt_error* record(dpt_instance* h, const dpt_replay_record_args* a) noexcept {
    return in<dpt_replay_record_args, &T::record>(h, a, DPT_REPLAY_RECORD_ARGS_SIZE_1_5, "replay record args");
  }
  static dpt_error* emit(dpt_instance* h, dpt_replay_emit_args* a) noexcept {
    return in_out<dpt_replay_emit_args, &T::emit>(h, a, DPT_REPLAY_EMIT_ARGS_SIZE_1_5, "replay emit args");
  }
  static dpt_error* ingest(dpt_instance* h, const dpt_replay_ingest_args* a) noexcept {
    return in<dpt_replay_ingest_args, &T::ingest>(h, a, DPT_REPLAY_INGEST_ARGS_SIZE_1_5, "replay ingest args");
  }
  static dpt_error* rows(dpt_instance* h, dpt_replay_rows_args* a) noexcept {
    return in_out<dpt_replay_rows_args, &T::rows>(h, a, DPT_REPLAY_ROWS_ARGS_SIZE_1_5, "replay rows args");
  }
  static dpt_error* close(dpt_instance* h, const dpt_replay_session_args* a) noexcept {
    return in<dpt_replay_session_args, &T::close>(h, a, DPT_REPLAY_SESSION_ARGS_SIZE_1_5, "replay close args");
  }

  static constexpr dpt_router_replay_v1 table{DPT_ROUTER_REPLAY_V1_SIZE_1_5, &open, &record, &emit,
                                              &ingest, &rows, &close};
};

// The extension lookup of a router class with replay, for describe's second argument.
// Internal linkage: the address of a weak (inline) instantiation is no constant
// expression for GCC under -fsanitize=address, and describe() tests it in `if constexpr`.
template <typename T>
static const void* router_replay_extension(const char* id) {
  return std::strcmp(id, DPT_EXT_ROUTER_REPLAY) == 0 ? &RouterReplayAdapter<T>::table : nullptr;
}

}  // namespace dopant::sdk
