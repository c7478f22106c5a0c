// AdamW state crossing the plugin boundary, as both AdamW plugins move it: copies through the
// host's copy service (CUDA copies on a GPU run, plain copies on a CPU run; each complete
// when it returns), the initial master weights, and export and import under PyTorch's names:
// "step" (a 0-d fp32 tensor, as torch.optim.AdamW keeps it), "exp_avg", "exp_avg_sq" and,
// for bf16 and fp16 parameters, "master" (fp32 master weights), each shaped like the
// parameter.
#pragma once

#include <dopant/host.h>
#include <dopant/sdk/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_common {

// Copies `bytes` from `src` (memory of `src_kind`) to `dst` (of `dst_kind`) on the default
// stream and waits for the copy.
void copy_now(const dpt_host* host, void* dst, dpt_memory_kind dst_kind, const void* src,
              dpt_memory_kind src_kind, uint64_t bytes);

// copy_now from host memory to device memory.
void upload(const dpt_host* host, void* device_dst, const void* host_src, uint64_t bytes);

// copy_now from device memory to host memory.
void download(const dpt_host* host, void* host_dst, const void* device_src, uint64_t bytes);

// The [count] elements of a bf16/fp16 parameter in device memory, widened exactly to fp32
// with `variant`: the initial master weights.
std::vector<float> download_widened(const dpt_host* host, adamw_kernels::Variant variant,
                                    adamw_kernels::ParamDtype dtype, const void* device_param,
                                    uint64_t count);

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
