// The rows of one dispatch, grouped by slot, and the weighted fold of their outputs.
#include "dopant/moe_exchange/exchange.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace dopant::moe_exchange {

void lay_out_rows(dpt_parallel_exchange& exchange, std::vector<PlannedRow> plan, uint32_t slots) {
  std::stable_sort(plan.begin(), plan.end(), [](const PlannedRow& a, const PlannedRow& b) { return a.slot < b.slot; });
  const uint64_t hidden = exchange.hidden;
  exchange.rows.resize(plan.size() * hidden);
  exchange.rows_per_slot.assign(slots, 0);
  for (size_t i = 0; i < plan.size(); ++i) {
    std::memcpy(exchange.rows.data() + i * hidden, plan[i].input, hidden * sizeof(float));
    ++exchange.rows_per_slot[plan[i].slot];
  }
  std::vector<size_t> order(plan.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan[a].target != plan[b].target ? plan[a].target < plan[b].target : plan[a].k < plan[b].k;
  });
  exchange.contribution_row.resize(plan.size());
  exchange.contribution_target.resize(plan.size());
  exchange.contribution_weight.resize(plan.size());
  for (size_t i = 0; i < order.size(); ++i) {
    exchange.contribution_row[i] = order[i];
    exchange.contribution_target[i] = plan[order[i]].target;
    exchange.contribution_weight[i] = plan[order[i]].weight;
  }
}

void fold_outputs(const dpt_parallel_exchange& exchange, const float* outputs, std::vector<float>& staging) {
  const uint64_t hidden = exchange.hidden;
  staging.assign(exchange.staging_rows * hidden, 0.0f);
  for (size_t i = 0; i < exchange.contribution_row.size(); ++i) {
    float* target = staging.data() + exchange.contribution_target[i] * hidden;
    const float* output = outputs + exchange.contribution_row[i] * hidden;
    const float weight = exchange.contribution_weight[i];
    for (uint64_t h = 0; h < hidden; ++h) target[h] += weight * output[h];
  }
}

void describe_outputs(dpt_parallel_exchange& exchange, dpt_dispatch_args& args) {
  const DLDevice cpu{kDLCPU, 0};
  exchange.rows_shape[0] = static_cast<int64_t>(exchange.hidden == 0 ? 0 : exchange.rows.size() / exchange.hidden);
  exchange.rows_shape[1] = static_cast<int64_t>(exchange.hidden);
  exchange.rows_strides[0] = static_cast<int64_t>(exchange.hidden);
  exchange.slots_shape[0] = static_cast<int64_t>(exchange.rows_per_slot.size());
  args.expert_tokens = DLTensor{exchange.rows.data(), cpu, 2, {kDLFloat, 32, 1}, exchange.rows_shape,
                                exchange.rows_strides, 0};
  args.tokens_per_expert = DLTensor{exchange.rows_per_slot.data(), cpu, 1, {kDLInt, 64, 1}, exchange.slots_shape,
                                    exchange.slots_strides, 0};
  args.local_experts = DLTensor{exchange.slot_experts.data(), cpu, 1, {kDLInt, 32, 1}, exchange.slots_shape,
                                exchange.slots_strides, 0};
  args.exchange = &exchange;
}

}  // namespace dopant::moe_exchange
