// The C++ twin of make_adamw_fixture.py's data: gradients and initial parameters come from a
// counter-based splitmix64 hash, so the fixture file stores neither the 100 steps of
// gradients nor anything the test can recompute. See the script's docstring for the formulas.
#pragma once

#include <cmath>
#include <cstdint>

namespace dopant::adamw_kernels::testing {

constexpr uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr uint64_t fixture_hash(uint64_t seed, uint64_t tensor, uint64_t step,
                                uint64_t element) {
  return splitmix64(seed ^ (tensor << 56) ^ (step << 32) ^ element);
}

// +-(x & 0xff) * 2^-(8 + (x >> 9) % 13): at most 8 significant bits, exact in fp32, bf16, f16.
inline float fixture_gradient(uint64_t seed, uint64_t tensor, uint64_t step, uint64_t element) {
  const uint64_t x = fixture_hash(seed, tensor, step, element);
  const auto magnitude = static_cast<float>(x & 0xffu);
  const int exponent = -8 - static_cast<int>((x >> 9) % 13);
  const float value = std::ldexp(magnitude, exponent);
  return ((x >> 8) & 1u) != 0 ? -value : value;
}

// ((x >> 40) - 2^23) * 2^-23 on the step-0 stream: uniform in [-1, 1), 24 bits.
inline float fixture_initial_param(uint64_t seed, uint64_t tensor, uint64_t element) {
  const uint64_t x = fixture_hash(seed, tensor, 0, element);
  const auto centered = static_cast<int32_t>(x >> 40) - (int32_t{1} << 23);
  return std::ldexp(static_cast<float>(centered), -23);
}

// The scaled fixture's schedule (make_adamw_fixture.py --scaled): the learning rate's scale
// and the loss scale at `step`; the gradient handed to the optimizer is
// fixture_gradient * fixture_loss_scale, exact in fp32.
inline double fixture_lr_scale(uint64_t step) { return 0.25 + static_cast<double>(step % 8) * 0.125; }
inline double fixture_loss_scale(uint64_t step) {
  constexpr double kScales[] = {1.0, 3.0, 1024.0, 0.75, 65536.0};
  return kScales[step % 5];
}

}  // namespace dopant::adamw_kernels::testing
