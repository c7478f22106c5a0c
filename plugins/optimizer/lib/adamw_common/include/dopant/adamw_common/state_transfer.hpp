// AdamW state crossing the plugin boundary, as both AdamW plugins move it: StateCopies
// (copies through the host's copy service on a stream of the plugin's own, ordered after the
// steps queued on the caller's streams), the initial master weights, and export and import
// under PyTorch's names: "step" (a 0-d fp32 tensor, as torch.optim.AdamW keeps it),
// "exp_avg", "exp_avg_sq" and, for bf16 and fp16 parameters, "master" (fp32 master
// weights), each shaped like the parameter.
#pragma once

#include <dopant/host.h>
#include <dopant/sdk/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_common {

// The order between an optimizer's steps, queued on the caller's streams, and its state
// copies, made from the calling thread. A step ends with step_queued(stream), which records
// an event of the plugin's own on that stream (a stream the caller may destroy right after);
// wait_for_steps() waits for the last such event. Copies run on a stream of the plugin's
// own (never the legacy default stream, which does not wait for non-blocking streams) and
// are complete when they return; callers wait_for_steps() before copying state a step
// reads or writes. On a CPU run streams and events are the host's placeholders and every
// step is complete when it returns.
class StateCopies {
 public:
  explicit StateCopies(const dpt_host* host);
  // Waits for the last step first, so memory the caller frees next is no longer in use.
  ~StateCopies();
  StateCopies(const StateCopies&) = delete;
  StateCopies& operator=(const StateCopies&) = delete;

  void step_queued(dpt_stream* stream);
  void wait_for_steps() const;

  // Copies `bytes` from `src` (memory of `src_kind`) to `dst` (of `dst_kind`) and waits.
  void copy(void* dst, dpt_memory_kind dst_kind, const void* src, dpt_memory_kind src_kind,
            uint64_t bytes) const;
  void upload(void* device_dst, const void* host_src, uint64_t bytes) const;
  void download(void* host_dst, const void* device_src, uint64_t bytes) const;

  // The [count] elements of a bf16/fp16 parameter in device memory, widened exactly to fp32
  // with `variant`: the initial master weights.
  std::vector<float> download_widened(adamw_kernels::Variant variant,
                                      adamw_kernels::ParamDtype dtype, const void* device_param,
                                      uint64_t count) const;

 private:
  void release() noexcept;

  const dpt_host* host_;
  dpt_stream* stream_ = nullptr;      // the plugin's copy stream
  dpt_event* step_done_ = nullptr;    // recorded at the end of every step
};

// The state arrays of one tensor, in this order wherever a plugin keeps them together.
enum class StateArray : uint32_t { exp_avg = 0, exp_avg_sq = 1, master = 2 };

// One tensor's state in host memory, [count] fp32 each; no master for fp32 tensors.
struct HostState {
  uint64_t step = 0;
  bool has_master = false;
  std::vector<float> exp_avg;
  std::vector<float> exp_avg_sq;
  std::vector<float> master;
};

// Visits "step", "exp_avg", "exp_avg_sq" and, when present, "master" of tensor `name`.
void visit_torch_state(const sdk::StateVisitor& visit, const std::string& name,
                       const std::vector<int64_t>& shape, const HostState& state);

// What import_state was asked to set.
struct ImportTarget {
  bool is_step = false;
  uint64_t step = 0;   // when is_step
  StateArray array{};  // otherwise; `value` holds `count` fp32 values
};

// Checks `value` as state `state` of tensor `name` with `count` elements and `arrays` state
// arrays (2: no master); DPT_NOT_FOUND for a state name the tensor does not have,
// DPT_INVALID_ARGUMENT for a value of the wrong type or size.
ImportTarget parse_import(const std::string& name, const char* state, const DLTensor& value,
                          uint64_t count, uint32_t arrays);

}  // namespace dopant::adamw_common
