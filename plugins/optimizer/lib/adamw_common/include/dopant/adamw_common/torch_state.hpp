// AdamW state under PyTorch's names, as both AdamW plugins export and import it: "step" (a
// 0-d fp32 tensor, as torch.optim.AdamW keeps it), "exp_avg", "exp_avg_sq" and, for bf16
// and fp16 parameters, "master" (fp32 master weights), each shaped like the parameter.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::adamw_common {

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
