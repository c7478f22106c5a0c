// The `topk` plugin through the core runtime on a 4-thread pool: a DeepSeek-V3-shaped call
// (sigmoid, 8 groups, bias, top-8) cut across threads gives route_reference's ids and
// weight bits and the matching load; bf16 logits route like their fp32 values; each bad
// argument or parameter is refused with a message that names it.
#include <dopant/router.h>
#include <dopant/runtime.h>
#include <dopant/sdk/float16.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/topk_kernels/routing.hpp>

#include <gtest/gtest.h>

#include "take_message.hpp"

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace dopant::router_tests {
namespace {

namespace kernels = topk_kernels;

// A row-major view of `data` with its own shape and strides.
struct View {
  std::vector<int64_t> shape, strides;
  DLTensor tensor;
  View(void* data, DLDataType dtype, std::vector<int64_t> extents)
      : shape(std::move(extents)), strides(shape.size(), 1),
        tensor{data, {kDLCPU, 0}, static_cast<int32_t>(shape.size()), dtype, shape.data(), nullptr, 0} {
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    tensor.strides = strides.data();
  }
};

// One topk instance made from TOML parameters.
class TopkPlugin {
 public:
  explicit TopkPlugin(const std::string& params) {
    const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, 1, DPT_LOG_WARN, 4};
    EXPECT_EQ("", take_message(dpt_runtime_create(&options, &runtime_)));
    EXPECT_EQ("", take_message(dpt_runtime_load_library(runtime_, DOPANT_TOPK_PLUGIN)));
    dpt_config* config = nullptr;
    create_error_ = take_message(dpt_plugin_params_parse(runtime_, "topk", params.c_str(), "test", &config));
    if (create_error_.empty()) create_error_ = take_message(dpt_plugin_instance_create(runtime_, "topk", config, &instance_));
    dpt_plugin_params_destroy(config);
  }
  ~TopkPlugin() {
    dpt_plugin_instance_destroy(instance_);
    dpt_runtime_destroy(runtime_);
  }
  const std::string& create_error() const { return create_error_; }
  std::string route(const dpt_route_args& args) const {
    const auto* table = static_cast<const dpt_router_v1*>(dpt_plugin_instance_table(instance_));
    return take_message(table->route(dpt_plugin_instance_handle(instance_), &args, nullptr));
  }

 private:
  dpt_runtime* runtime_ = nullptr;
  dpt_plugin_instance* instance_ = nullptr;
  std::string create_error_;
};

constexpr int64_t kTokens = 1000, kExperts = 256;
constexpr uint32_t kTopK = 8;
const char* const kDeepseek =
    "scoring = \"sigmoid\"\ntop_k = 8\nnorm_topk_prob = true\nn_group = 8\ntopk_group = 4\n"
    "routed_scaling_factor = 2.5\n";

// Random inputs and output buffers of one call, and its args.
struct Call {
  std::vector<float> logits = std::vector<float>(kTokens * kExperts);  // [tokens, experts] fp32
  std::vector<float> bias = std::vector<float>(kExperts);              // [experts] fp32
  std::vector<int32_t> ids = std::vector<int32_t>(kTokens * kTopK, -1);   // [tokens, top_k] int32
  std::vector<float> weights = std::vector<float>(kTokens * kTopK, NAN);  // [tokens, top_k] fp32
  std::vector<int64_t> load = std::vector<int64_t>(kExperts, -1);         // [experts] int64
  View logits_view{logits.data(), sdk::kFloat32, {kTokens, kExperts}};
  View bias_view{bias.data(), sdk::kFloat32, {kExperts}};
  View ids_view{ids.data(), sdk::kInt32, {kTokens, kTopK}};
  View weights_view{weights.data(), sdk::kFloat32, {kTokens, kTopK}};
  View load_view{load.data(), sdk::kInt64, {kExperts}};
  dpt_route_args args = DPT_ROUTE_ARGS_INIT;

  Call() {
    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::uniform_real_distribution<float> small(-0.01f, 0.01f);
    for (float& x : logits) x = normal(random);
    for (float& b : bias) b = small(random);
    args.top_k = kTopK;
    args.logits = &logits_view.tensor;
    args.correction_bias = &bias_view.tensor;
    args.expert_ids = &ids_view.tensor;
    args.weights = &weights_view.tensor;
    args.expert_load = &load_view.tensor;
  }
  Call(const Call&) = delete;
};

TEST(TopkPlugin, ThreadedCallGivesTheReferenceAndItsLoad) {
  TopkPlugin plugin(kDeepseek);
  ASSERT_EQ("", plugin.create_error());
  Call call;
  ASSERT_EQ("", plugin.route(call.args));
  const kernels::RoutingRule rule{kernels::Scoring::sigmoid, kTopK, true, 8, 4, 2.5f};
  std::vector<int32_t> ids(call.ids.size());
  std::vector<float> weights(call.weights.size());
  kernels::RouteData data{call.logits.data(), kernels::LogitsType::f32, kTokens, kExperts,
                          call.bias.data(), nullptr, ids.data(), weights.data()};
  kernels::route_reference(rule, data);
  EXPECT_EQ(call.ids, ids);
  EXPECT_EQ(0, std::memcmp(call.weights.data(), weights.data(), weights.size() * sizeof(float)));
  std::vector<int64_t> load(kExperts, 0);
  for (int32_t id : ids) ++load[id];
  EXPECT_EQ(call.load, load);
}

TEST(TopkPlugin, Bf16LogitsRouteLikeTheirFp32Values) {
  TopkPlugin plugin(kDeepseek);
  ASSERT_EQ("", plugin.create_error());
  Call wide, narrow;
  std::vector<uint16_t> bf16(wide.logits.size());  // [tokens, experts] bf16
  for (size_t i = 0; i < bf16.size(); ++i) {
    bf16[i] = sdk::float_to_bf16(wide.logits[i]);
    wide.logits[i] = sdk::bf16_to_float(bf16[i]);
  }
  View bf16_view(bf16.data(), sdk::kBFloat16, {kTokens, kExperts});
  narrow.args.logits = &bf16_view.tensor;
  ASSERT_EQ("", plugin.route(wide.args));
  ASSERT_EQ("", plugin.route(narrow.args));
  EXPECT_EQ(wide.ids, narrow.ids);
  EXPECT_EQ(wide.weights, narrow.weights);
}

TEST(TopkPlugin, BadArgumentsAreRefusedByName) {
  TopkPlugin plugin(kDeepseek);
  ASSERT_EQ("", plugin.create_error());
  const auto refused = [&](const dpt_route_args& args) { return plugin.route(args); };
  {
    Call call;
    call.args.top_k = 2;
    EXPECT_EQ(refused(call.args), "route args `top_k` 2 differs from the configured top_k 8");
  }
  {
    Call call;
    call.weights_view.tensor.dtype = sdk::kBFloat16;
    EXPECT_EQ(refused(call.args), "route args `weights` must be [1000, 8] fp32, got [1000, 8] bf16");
  }
  {
    Call call;
    call.bias_view.shape[0] = kExperts - 1;
    EXPECT_EQ(refused(call.args), "route args `correction_bias` must be [256] fp32, got [255] fp32");
  }
  {
    Call call;
    call.bias[17] = INFINITY;
    EXPECT_EQ(refused(call.args), "route args `correction_bias`: expert 17 is not finite");
  }
  {
    Call call;
    call.args.logits = nullptr;
    EXPECT_EQ(refused(call.args), "route args `logits` is NULL");
  }
}

TEST(TopkPlugin, AGroupCountThatDoesNotDivideTheExpertsIsRefused) {
  TopkPlugin plugin("scoring = \"sigmoid\"\nn_group = 3\n");
  ASSERT_EQ("", plugin.create_error());
  Call call;
  EXPECT_EQ(plugin.route(call.args), "n_group 3 must divide 256 experts");
}

TEST(TopkPlugin, AnUnknownScoringIsRefusedAtCreation) {
  TopkPlugin plugin("scoring = \"softplus\"\n");
  EXPECT_NE(plugin.create_error().find("scoring"), std::string::npos) << plugin.create_error();
}

}  // namespace
}  // namespace dopant::router_tests
