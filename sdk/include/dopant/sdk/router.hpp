// dopant SDK — RouterAdapter<T>: the static dpt_router_draft table of a C++ class.
//
//   class MyRouter {
//    public:
//     MyRouter(const dpt_host* host, const sdk::Config& config);
//     void route(const dpt_route_args& args, dpt_stream* stream);
//   };
#pragma once

#include <dopant/draft/router.h>

#include "instance.hpp"
#include "structs.hpp"

namespace dopant::sdk {

template <typename T>
struct RouterAdapter {
  using Table = dpt_router_draft;
  static constexpr const char* kind = DPT_KIND_ROUTER;

  static dpt_error* route(dpt_instance* handle, const dpt_route_args* args,
                          dpt_stream* stream) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.route(read_struct(args, DPT_ROUTE_ARGS_DRAFT_SIZE, "route args"), stream);
    });
  }

  static constexpr dpt_router_draft table{DPT_ROUTER_DRAFT_SIZE, &create_instance<T>,
                                       &destroy_instance<T>, &route};
};

}  // namespace dopant::sdk
