// Reader of fixtures/topk_fixture.bin, the routing cases PyTorch computed with
// fixtures/make_topk_fixture.py (its docstring has the layout).
#pragma once

#include <dopant/topk_kernels/routing.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::router_tests {

struct TopkFixtureCase {
  std::string name;
  topk_kernels::RoutingRule rule;
  topk_kernels::LogitsType logits_type = topk_kernels::LogitsType::f32;
  int64_t tokens = 0;
  int64_t experts = 0;
  std::vector<float> logits_f32;      // [tokens, experts] fp32 (empty for bf16 cases)
  std::vector<uint16_t> logits_bf16;  // [tokens, experts] bf16 (empty for fp32 cases)
  std::vector<float> bias;            // [experts] fp32, empty when the case has none
  std::vector<int32_t> ids;           // [tokens, top_k] int32, PyTorch's
  std::vector<float> weights;         // [tokens, top_k] fp32, PyTorch's

  const void* logits() const {
    return logits_type == topk_kernels::LogitsType::bf16 ? static_cast<const void*>(logits_bf16.data())
                                                         : logits_f32.data();
  }
};

// Every case of the file; throws std::runtime_error on a short or malformed file.
std::vector<TopkFixtureCase> read_topk_fixture(const std::string& path);

}  // namespace dopant::router_tests
