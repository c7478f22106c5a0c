// Checks of "dopant.router.draft/0" plugins: for random fp32 logits, every token gets top_k
// distinct expert ids in [0, experts) and finite combine weights.
#include <dopant/draft/router.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

namespace dopant::conformance {

namespace {

void check_routes_valid(const Target& target) {
  constexpr int64_t kTokens = 5, kExperts = 8, kTopK = 2;
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());

  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> logits(kTokens * kExperts);  // [tokens, experts] fp32
  for (float& x : logits) x = uniform(random);
  std::vector<int32_t> ids(kTokens * kTopK, -1);                 // [tokens, top_k] int32
  std::vector<float> weights(kTokens * kTopK, std::nanf(""));    // [tokens, top_k] fp32
  int64_t logits_shape[] = {kTokens, kExperts}, logits_strides[] = {kExperts, 1};
  int64_t out_shape[] = {kTokens, kTopK}, out_strides[] = {kTopK, 1};
  const DLTensor logits_view{logits.data(), {kDLCPU, 0}, 2, sdk::kFloat32,
                             logits_shape, logits_strides, 0};
  DLTensor ids_view{ids.data(), {kDLCPU, 0}, 2, sdk::kInt32, out_shape, out_strides, 0};
  DLTensor weights_view{weights.data(), {kDLCPU, 0}, 2, sdk::kFloat32, out_shape, out_strides, 0};
  const dpt_route_args args{DPT_ROUTE_ARGS_DRAFT_SIZE, nullptr, 0, kTopK, &logits_view,
                            &ids_view, &weights_view};
  ASSERT_EQ("", ok_or_message(router.table<dpt_router_draft>().route(router.handle(), &args,
                                                                  nullptr)));
  for (int64_t t = 0; t < kTokens; ++t) {
    std::set<int32_t> chosen;
    for (int64_t k = 0; k < kTopK; ++k) {
      const int32_t id = ids[t * kTopK + k];
      EXPECT_TRUE(id >= 0 && id < kExperts) << "token " << t << ": expert id " << id;
      EXPECT_TRUE(std::isfinite(weights[t * kTopK + k])) << "token " << t << ": weight " << k;
      chosen.insert(id);
    }
    EXPECT_EQ(chosen.size(), static_cast<size_t>(kTopK)) << "token " << t << ": repeated expert";
  }
}

}  // namespace

void register_router_checks(const Target& target) {
  add_check(target, "router_routes_valid", [target] { check_routes_valid(target); });
}

}  // namespace dopant::conformance
