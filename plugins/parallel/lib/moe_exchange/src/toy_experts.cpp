// The toy experts, applied row by row to what a dispatch handed out.
#include "dopant/moe_exchange/toy_experts.hpp"

namespace dopant::moe_exchange {

void toy_expert(uint32_t expert, const float* x, float* y, uint64_t hidden) {
  const float scale = 1.0f + static_cast<float>(expert) / 8.0f;
  const float bias = static_cast<float>(expert + 1) / 64.0f;
  for (uint64_t h = 0; h < hidden; ++h) y[h] = x[h] * scale + bias * static_cast<float>(static_cast<int>(h % 5) - 2);
}

std::vector<float> run_toy_experts(const dpt_dispatch_args& dispatched) {
  const DLTensor& rows = dispatched.expert_tokens;
  const auto hidden = static_cast<uint64_t>(rows.shape[1]);
  std::vector<float> outputs(static_cast<uint64_t>(rows.shape[0]) * hidden);
  const auto* in = static_cast<const float*>(rows.data);
  const auto* per_slot = static_cast<const int64_t*>(dispatched.tokens_per_expert.data);
  const auto* experts = static_cast<const int32_t*>(dispatched.local_experts.data);
  uint64_t row = 0;
  for (int64_t slot = 0; slot < dispatched.tokens_per_expert.shape[0]; ++slot) {
    for (int64_t i = 0; i < per_slot[slot]; ++i, ++row) {
      toy_expert(static_cast<uint32_t>(experts[slot]), in + row * hidden, outputs.data() + row * hidden, hidden);
    }
  }
  return outputs;
}

}  // namespace dopant::moe_exchange
