// choose_offloaded: largest-first selection of the tensors whose state goes to the host.
#include "offload_choice.hpp"

#include <algorithm>
#include <numeric>

namespace dopant::adamw_offload {

std::vector<bool> choose_offloaded(const std::vector<uint64_t>& state_bytes, double fraction) {
  std::vector<size_t> order(state_bytes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return state_bytes[a] > state_bytes[b]; });
  const double total = static_cast<double>(
      std::accumulate(state_bytes.begin(), state_bytes.end(), uint64_t{0}));
  const double target = fraction * total;
  std::vector<bool> offloaded(state_bytes.size(), false);
  uint64_t taken = 0;
  for (size_t index : order) {
    if (static_cast<double>(taken) >= target) break;
    offloaded[index] = true;
    taken += state_bytes[index];
  }
  return offloaded;
}

}  // namespace dopant::adamw_offload
