// Reads adamw_fixture.bin, written by fixtures/make_adamw_fixture.py (layout documented
// there): PyTorch 1.13's AdamW state after `steps` steps, per tensor, with its param group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::adamw_kernels::testing {

struct FixtureGroup {
  double lr, beta1, beta2, eps, weight_decay;
};

struct FixtureTensor {
  uint32_t group;
  std::vector<float> initial_param;     // [numel]
  std::vector<float> final_param;       // [numel] after `steps` steps
  std::vector<float> final_exp_avg;     // [numel]
  std::vector<float> final_exp_avg_sq;  // [numel]
};

struct Fixture {
  uint32_t steps;
  uint64_t seed;
  std::vector<FixtureGroup> groups;
  std::vector<FixtureTensor> tensors;
};

// Throws std::runtime_error when the file is missing, truncated or of another version.
Fixture read_fixture(const std::string& path);

}  // namespace dopant::adamw_kernels::testing
