// The check every entry point makes of an observed per-expert load (token counts).
#pragma once

#include <cstdint>
#include <span>

namespace dopant::expert_balance {

// Refuses (sdk::Error, DPT_INVALID_ARGUMENT) a load whose length is not `experts` or with
// a negative entry, naming `what` and the expert.
void check_expert_load(std::span<const int64_t> expert_load, uint32_t experts, const char* what);

}  // namespace dopant::expert_balance
