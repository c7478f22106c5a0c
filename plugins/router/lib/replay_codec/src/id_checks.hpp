// Checks both decoders share: a shape they can hold, and every id below the expert count,
// with errors naming the payload kind and the first bad row, layer and slot.
#pragma once

#include <cstdint>
#include <span>

namespace dopant::replay_codec::detail {

// Refuses layers or top_k of 0, and experts outside [1, kMaxExperts].
void check_shape(const char* payload, uint32_t layers, uint32_t top_k, uint32_t experts);

// Refuses the first id of `ids` ([rows, layers, top_k]) outside [0, experts).
void check_ids(const char* payload, std::span<const int32_t> ids, uint32_t layers, uint32_t top_k,
               uint32_t experts);

}  // namespace dopant::replay_codec::detail
