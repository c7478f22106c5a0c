// Which tensors of a param group have their state offloaded to pinned host memory, given
// the `offload_fraction` parameter.
#pragma once

#include <cstdint>
#include <vector>

namespace dopant::adamw_offload {

// Tensors are taken largest state first (ties in group order) until the offloaded bytes
// reach `fraction` of the group's state bytes, so at least that fraction is offloaded: 0
// offloads nothing, 1 everything that has state. Returns one flag per tensor.
std::vector<bool> choose_offloaded(const std::vector<uint64_t>& state_bytes, double fraction);

}  // namespace dopant::adamw_offload
