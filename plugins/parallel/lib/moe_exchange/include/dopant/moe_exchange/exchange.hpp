// One MoE dispatch in flight (dpt_parallel_exchange): the rows this rank computes, grouped
// by expert slot, and how their outputs fold back into per-token sums. Both strategies
// share it; what differs is the staging area the weighted outputs are summed into (every
// rank's tokens for megatron, the tokens this rank received for wideep) and how the staged
// sums travel back.
#pragma once

#include <dopant/parallel.h>

#include <cstdint>
#include <vector>

struct dpt_parallel_exchange {
  uint64_t tokens = 0;  // the dispatching rank's tokens
  uint64_t hidden = 0;

  // Expert inputs [rows, hidden], grouped by slot, and the rows of each slot.
  std::vector<float> rows;
  std::vector<int64_t> rows_per_slot;
  std::vector<int32_t> slot_experts;

  // Weighted outputs fold into `staging_rows` rows: contribution i adds
  // weight[i] * output row `row[i]` into staging row `target[i]`. Contributions are listed
  // by target, then by k, so every staged sum is formed in the order of the router's top_k.
  uint64_t staging_rows = 0;
  std::vector<uint64_t> contribution_row;
  std::vector<uint64_t> contribution_target;
  std::vector<float> contribution_weight;

  // Strategy-specific: megatron pads every rank's tokens to `padded_tokens`; wideep keeps
  // the rows sent per peer (by rank), the rows received per peer, and the token of each
  // sent row, in send order.
  uint64_t padded_tokens = 0;
  std::vector<uint64_t> sent_per_rank;
  std::vector<uint64_t> received_per_rank;
  std::vector<uint32_t> sent_token;

  // Shapes and strides behind the DLTensor views handed out by dispatch.
  int64_t rows_shape[2] = {0, 0};
  int64_t rows_strides[2] = {0, 1};
  int64_t slots_shape[1] = {0};
  int64_t slots_strides[1] = {1};
};

namespace dopant::moe_exchange {

// One row to compute: the token (a staging row) it belongs to, the slot, the router's k
// and weight, and where its input comes from.
struct PlannedRow {
  uint32_t slot;
  uint64_t target;   // staging row
  uint32_t k;
  float weight;
  const float* input;  // [hidden]
};

// Fills `exchange` from the planned rows: rows grouped by slot (stable, so in plan order
// within a slot), inputs copied, and contributions ordered by (target, k).
void lay_out_rows(dpt_parallel_exchange& exchange, std::vector<PlannedRow> plan, uint32_t slots);

// staging[target] = sum in k order of weight * outputs[row]; staging is [staging_rows, hidden],
// zeroed here.
void fold_outputs(const dpt_parallel_exchange& exchange, const float* outputs, std::vector<float>& staging);

// The dispatch args' out views over `exchange`.
void describe_outputs(dpt_parallel_exchange& exchange, dpt_dispatch_args& args);

}  // namespace dopant::moe_exchange
