// Checks of "dopant.router/1" plugins, on 5 tokens over 8 experts, top-2. They assume
// nothing of the routing rule, only the kind's contract (abi/dopant/router.h):
//   - every token gets top_k distinct expert ids in [0, experts) and finite weights;
//   - the same call twice gives the same bits;
//   - bf16 logits give what fp32 logits of the same values give;
//   - recorded ids are the ids returned, row for row;
//   - expert_load counts the ids returned;
//   - recorded ids out of range or repeated within a row, an int32 logits tensor and
//     top_k above the expert count are refused with an error.
#include <dopant/router.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/float16.hpp>
#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

namespace dopant::conformance {

namespace {

constexpr int64_t kTokens = 5, kExperts = 8, kTopK = 2;

// A borrowed row-major view of a vector, shape and strides owned here.
struct View {
  int64_t shape[2];
  int64_t strides[2];
  DLTensor tensor;
  View(void* data, DLDataType dtype, int64_t rows, int64_t columns)
      : shape{rows, columns}, strides{columns, 1},
        tensor{data, {kDLCPU, 0}, 2, dtype, shape, strides, 0} {}
  View(void* data, DLDataType dtype, int64_t count)
      : shape{count, 0}, strides{1, 0}, tensor{data, {kDLCPU, 0}, 1, dtype, shape, strides, 0} {}
  View(const View&) = delete;
  View& operator=(const View&) = delete;
};

// fp32 logits [tokens, experts], uniform in [-1, 1): no two equal.
std::vector<float> random_logits() {
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> logits(kTokens * kExperts);
  for (float& x : logits) x = uniform(random);
  return logits;
}

// One route call's outputs.
struct Routed {
  std::vector<int32_t> ids;                                        // [tokens, top_k] int32
  std::vector<float> weights;                                      // [tokens, top_k] fp32
  std::vector<int64_t> load = std::vector<int64_t>(kExperts, -1);  // [experts] int64
};

// Routes `logits` ([tokens, experts] of `dtype`) into outputs of shape [tokens, top_k],
// replaying `recorded` ([tokens, top_k] int32) when non-NULL; returns "" or the error's text.
std::string route(const PluginInstance& router, void* logits, DLDataType dtype, Routed& out,
                  int32_t* recorded = nullptr, uint32_t top_k = kTopK, bool with_load = false) {
  out.ids.assign(kTokens * top_k, -1);
  out.weights.assign(kTokens * top_k, NAN);
  View logits_view(logits, dtype, kTokens, kExperts);
  View recorded_view(recorded, sdk::kInt32, kTokens, top_k);
  View ids_view(out.ids.data(), sdk::kInt32, kTokens, top_k);
  View weights_view(out.weights.data(), sdk::kFloat32, kTokens, top_k);
  View load_view(out.load.data(), sdk::kInt64, kExperts);
  dpt_route_args args = DPT_ROUTE_ARGS_INIT;
  args.top_k = top_k;
  args.logits = &logits_view.tensor;
  args.recorded_ids = recorded != nullptr ? &recorded_view.tensor : nullptr;
  args.expert_ids = &ids_view.tensor;
  args.weights = &weights_view.tensor;
  args.expert_load = with_load ? &load_view.tensor : nullptr;
  return ok_or_message(router.table<dpt_router_v1>().route(router.handle(), &args, nullptr));
}

void expect_valid(const Routed& routed) {
  for (int64_t t = 0; t < kTokens; ++t) {
    std::set<int32_t> chosen;
    for (int64_t k = 0; k < kTopK; ++k) {
      const int32_t id = routed.ids[t * kTopK + k];
      EXPECT_TRUE(id >= 0 && id < kExperts) << "token " << t << ": expert id " << id;
      EXPECT_TRUE(std::isfinite(routed.weights[t * kTopK + k])) << "token " << t << ": weight " << k;
      chosen.insert(id);
    }
    EXPECT_EQ(chosen.size(), static_cast<size_t>(kTopK)) << "token " << t << ": repeated expert";
  }
}

void check_routes_valid(const Target& target) {
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());
  std::vector<float> logits = random_logits();
  Routed first, second;
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, first));
  expect_valid(first);
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, second));
  EXPECT_EQ(first.ids, second.ids) << "the same call chose other experts";
  EXPECT_EQ(0, std::memcmp(first.weights.data(), second.weights.data(), first.weights.size() * 4))
      << "the same call gave other weights";
}

void check_bf16_logits(const Target& target) {
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());
  std::vector<float> logits = random_logits();
  std::vector<uint16_t> narrow(logits.size());  // [tokens, experts] bf16
  for (size_t i = 0; i < logits.size(); ++i) {
    narrow[i] = sdk::float_to_bf16(logits[i]);
    logits[i] = sdk::bf16_to_float(narrow[i]);  // the same values, exact in both types
  }
  Routed wide, half;
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, wide));
  ASSERT_EQ("", route(router, narrow.data(), sdk::kBFloat16, half));
  expect_valid(half);
  EXPECT_EQ(wide.ids, half.ids) << "bf16 logits chose other experts than fp32 of the same values";
  EXPECT_EQ(wide.weights, half.weights);
}

void check_recorded_ids_replayed(const Target& target) {
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());
  std::vector<float> logits = random_logits();
  Routed own;
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, own));
  // A selection the router would not make on its own: each token's own ids shifted by 3.
  std::vector<int32_t> recorded(own.ids);  // [tokens, top_k] int32
  for (int32_t& id : recorded) id = (id + 3) % kExperts;
  Routed replayed;
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, replayed, recorded.data()));
  EXPECT_EQ(replayed.ids, recorded) << "recorded ids were not replayed";
  expect_valid(replayed);
}

void check_expert_load(const Target& target) {
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());
  std::vector<float> logits = random_logits();
  Routed routed;
  ASSERT_EQ("", route(router, logits.data(), sdk::kFloat32, routed, nullptr, kTopK, true));
  std::vector<int64_t> counted(kExperts, 0);
  for (int32_t id : routed.ids) {
    if (id >= 0 && id < kExperts) ++counted[id];
  }
  EXPECT_EQ(routed.load, counted) << "expert_load is not the count of the ids returned";
}

void check_rejects_bad_input(const Target& target) {
  PluginInstance router(target);
  ASSERT_TRUE(router.ok());
  std::vector<float> logits = random_logits();
  Routed out;
  std::vector<int32_t> recorded(kTokens * kTopK);  // [tokens, top_k] int32
  for (size_t i = 0; i < recorded.size(); ++i) recorded[i] = static_cast<int32_t>(i % kExperts);
  recorded[3] = kExperts;
  EXPECT_NE("", route(router, logits.data(), sdk::kFloat32, out, recorded.data()))
      << "a recorded id equal to the expert count was accepted";
  recorded[3] = recorded[2];
  EXPECT_NE("", route(router, logits.data(), sdk::kFloat32, out, recorded.data()))
      << "a recorded row naming one expert twice was accepted";
  std::vector<int32_t> integer_logits(kTokens * kExperts, 1);
  EXPECT_NE("", route(router, integer_logits.data(), sdk::kInt32, out))
      << "int32 logits were accepted";
  EXPECT_NE("", route(router, logits.data(), sdk::kFloat32, out, nullptr, kExperts + 1))
      << "top_k above the expert count was accepted";
}

}  // namespace

void register_router_checks(const Target& target) {
  add_check(target, "router_routes_valid", [target] { check_routes_valid(target); });
  add_check(target, "router_bf16_logits", [target] { check_bf16_logits(target); });
  add_check(target, "router_recorded_ids_replayed",
            [target] { check_recorded_ids_replayed(target); });
  add_check(target, "router_expert_load", [target] { check_expert_load(target); });
  add_check(target, "router_rejects_bad_input", [target] { check_rejects_bad_input(target); });
}

}  // namespace dopant::conformance
