// Small deterministic experts for tests and the moe-dispatch workload, so that what comes
// back from a combine can be checked against a reference computed in one process:
//   expert e maps x to y[h] = x[h] * (1 + e / 8) + (e + 1) / 64 * ((h mod 5) - 2).
#pragma once

#include <dopant/parallel.h>

#include <cstdint>
#include <vector>

namespace dopant::moe_exchange {

// y [hidden] = expert `expert` applied to x [hidden].
void toy_expert(uint32_t expert, const float* x, float* y, uint64_t hidden);

// The outputs [rows, hidden] of a dispatch's expert_tokens, each row through the expert of
// its slot (tokens_per_expert and local_experts say which).
std::vector<float> run_toy_experts(const dpt_dispatch_args& dispatched);

}  // namespace dopant::moe_exchange
