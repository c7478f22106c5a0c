// dopant SDK — ParallelAdapter<T>: the static dpt_parallel_draft table of a C++ class.
//
//   class MyStrategy {
//    public:
//     MyStrategy(const dpt_host* host, const sdk::Config& config);
//     void setup(const dpt_parallel_topology& topology);
//     dpt_dispatch_result dispatch(const DLTensor& tokens, const DLTensor& expert_ids,
//                                  dpt_stream* stream);
//     void combine(const DLTensor& expert_outputs, const DLTensor& weights, DLTensor& out,
//                  dpt_stream* stream);
//   };
#pragma once

#include <dopant/draft/parallel.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

namespace dopant::sdk {

template <typename T>
struct ParallelAdapter {
  using Table = dpt_parallel_draft;
  static constexpr const char* kind = DPT_KIND_PARALLEL;

  static dpt_error* setup(dpt_instance* handle, const dpt_parallel_topology* topology) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.setup(read_struct(topology, DPT_PARALLEL_TOPOLOGY_DRAFT_SIZE, "topology"));
    });
  }
  static dpt_error* dispatch(dpt_instance* handle, const DLTensor* tokens,
                             const DLTensor* expert_ids, dpt_dispatch_result* out,
                             dpt_stream* stream) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      require(tokens != nullptr && expert_ids != nullptr, "dispatch: tensors must be non-NULL");
      write_struct(out, self.dispatch(*tokens, *expert_ids, stream),
                   DPT_DISPATCH_RESULT_DRAFT_SIZE, "dispatch result");
    });
  }
  static dpt_error* combine(dpt_instance* handle, const DLTensor* expert_outputs,
                            const DLTensor* weights, DLTensor* out, dpt_stream* stream) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      require(expert_outputs != nullptr && weights != nullptr && out != nullptr,
              "combine: tensors must be non-NULL");
      self.combine(*expert_outputs, *weights, *out, stream);
    });
  }

  static constexpr dpt_parallel_draft table{DPT_PARALLEL_DRAFT_SIZE, &create_instance<T>,
                                         &destroy_instance<T>, &setup, &dispatch, &combine};
};

}  // namespace dopant::sdk
