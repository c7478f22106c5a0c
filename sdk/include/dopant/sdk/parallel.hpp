// dopant SDK — ParallelAdapter<T>: the static dpt_parallel_v1 table of a C++ class.
//
//   class MyStrategy {
//    public:
//     MyStrategy(const dpt_host* host, const sdk::Config& config);
//     void layout(dpt_parallel_layout_args& args);   // fills the out fields
//     void shard(dpt_parallel_shard_args& args);     // fills offset and extent
//     void setup(const dpt_parallel_topology& topology);
//     void dispatch(dpt_dispatch_args& args, dpt_stream* stream);  // fills the out fields
//     void combine(dpt_combine_args& args, dpt_stream* stream);    // consumes args.exchange
//     void release(dpt_parallel_exchange* exchange) noexcept;
//   };
#pragma once

#include <dopant/parallel.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

namespace dopant::sdk {

template <typename T>
struct ParallelAdapter {
  using Table = dpt_parallel_v1;
  static constexpr const char* kind = DPT_KIND_PARALLEL;

  // An in/out args slot: the struct read and widened, handed to `method`, written back up
  // to the caller's size.
  template <typename Args, typename Method>
  static dpt_error* in_out(dpt_instance* handle, Args* args, size_t min_size, const char* what,
                           Method method) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      Args copy = read_struct(static_cast<const Args*>(args), min_size, what);
      method(self, copy);
      write_struct(args, copy, min_size, what);
    });
  }

  static dpt_error* layout(dpt_instance* handle, dpt_parallel_layout_args* args) noexcept {
    return in_out(handle, args, DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5, "layout args",
                  [](T& self, dpt_parallel_layout_args& a) { self.layout(a); });
  }
  static dpt_error* shard(dpt_instance* handle, dpt_parallel_shard_args* args) noexcept {
    return in_out(handle, args, DPT_PARALLEL_SHARD_ARGS_SIZE_1_5, "shard args",
                  [](T& self, dpt_parallel_shard_args& a) { self.shard(a); });
  }
  static dpt_error* setup(dpt_instance* handle, const dpt_parallel_topology* topology) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.setup(read_struct(topology, DPT_PARALLEL_TOPOLOGY_SIZE_1_5, "topology"));
    });
  }
  static dpt_error* dispatch(dpt_instance* handle, dpt_dispatch_args* args, dpt_stream* stream) noexcept {
    return in_out(handle, args, DPT_DISPATCH_ARGS_SIZE_1_5, "dispatch args",
                  [&](T& self, dpt_dispatch_args& a) { self.dispatch(a, stream); });
  }
  static dpt_error* combine(dpt_instance* handle, dpt_combine_args* args, dpt_stream* stream) noexcept {
    return in_out(handle, args, DPT_COMBINE_ARGS_SIZE_1_5, "combine args",
                  [&](T& self, dpt_combine_args& a) { self.combine(a, stream); });
  }
  static void release(dpt_instance* handle, dpt_parallel_exchange* exchange) noexcept {
    if (exchange != nullptr) instance_of<T>(handle)->object.release(exchange);
  }

  static constexpr dpt_parallel_v1 table{DPT_PARALLEL_V1_SIZE_1_5, &create_instance<T>, &destroy_instance<T>,
                                            &layout, &shard, &setup, &dispatch, &combine, &release};
};

}  // namespace dopant::sdk
