// Deterministic synthetic data for workloads and for the tests that recompute their
// results: a counter-based generator (splitmix64 mixing) so any element can be produced
// from (seed, stream, index) alone, in any order and on any thread, and the uneven split of
// a parameter count into tensors.
#pragma once

#include <cstdint>
#include <vector>

namespace dopant::workloads {

// The splitmix64 output function: a bijective mix of 64 bits.
constexpr uint64_t splitmix64_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Streams of the optimizer-step workload: initial parameters, then gradients of each step.
constexpr uint64_t parameter_stream() { return 0; }
constexpr uint64_t gradient_stream(uint64_t step) { return 1 + step; }

// A uniform float in [-1, 1) for element `index` of `stream` under `seed` (24 random bits,
// so every value is exact in fp32).
constexpr float synthetic_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t key = splitmix64_mix(splitmix64_mix(seed) ^ (stream * 0xd1b54a32d192ed03ULL));
  const uint64_t bits = splitmix64_mix(key + index) >> 40;  // 24 bits
  return static_cast<float>(static_cast<int64_t>(bits) - (int64_t{1} << 23)) *
         (1.0f / static_cast<float>(int64_t{1} << 23));
}

// Splits `total` elements into `count` tensors of deliberately uneven sizes: every tensor
// gets one element, tensor k a share of the rest proportional to (k + 1)^2 + 1 (so sizes
// are neither equal nor round), and the last one the remainder. Needs total >= count;
// count <= 4096 keeps the arithmetic inside 64 bits.
inline uint64_t split_weight(uint64_t k) { return (k + 1) * (k + 1) + 1; }

inline std::vector<uint64_t> split_sizes(uint64_t total, uint32_t count) {
  std::vector<uint64_t> sizes(count, 0);
  if (count == 0 || total < count) return sizes;
  const uint64_t rest = total - count;
  uint64_t weight_sum = 0;
  for (uint32_t k = 0; k < count; ++k) weight_sum += split_weight(k);
  uint64_t assigned = 0;
  for (uint32_t k = 0; k + 1 < count; ++k) {
    // 1 + floor(rest * weight / weight_sum), without overflow
    const uint64_t weight = split_weight(k);
    sizes[k] = 1 + rest / weight_sum * weight + rest % weight_sum * weight / weight_sum;
    assigned += sizes[k];
  }
  sizes[count - 1] = total - assigned;
  return sizes;
}

}  // namespace dopant::workloads
