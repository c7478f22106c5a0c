// Loads the Lion plugin built out of tree against the installed package (path given on the
// command line by install_test.cmake), drives steps through its optimizer table on fixed
// data and compares parameters and momentum to a plain Lion written here.
#include <dopant/runtime.h>

#include "test_runtime.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

const char* g_library = nullptr;

// Plain Lion on one element, in the order of Chen et al. 2023 (Algorithm 2).
void reference_lion(float& p, float& m, float g, float lr, float beta1, float beta2, float wd) {
  const float c = beta1 * m + (1.0f - beta1) * g;
  const float sign = static_cast<float>((c > 0.0f) - (c < 0.0f));
  p = p * (1.0f - lr * wd) - lr * sign;
  m = beta2 * m + (1.0f - beta2) * g;
}

struct ExportedMomentum {
  std::vector<std::string> names;
  std::vector<std::vector<float>> values;
};

dpt_error* save_momentum(void* context, const char* tensor, const char* state, const DLTensor* v) {
  auto& saved = *static_cast<ExportedMomentum*>(context);
  if (std::string(state) != "exp_avg") return nullptr;
  const float* data = static_cast<const float*>(v->data);
  saved.names.emplace_back(tensor);
  saved.values.emplace_back(data, data + v->shape[0]);
  return nullptr;
}

TEST(SdkInstall, OutOfTreeLionMatchesReference) {
  ASSERT_NE(g_library, nullptr) << "usage: sdk_lion_install_test PATH/dopant-lion.so";
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  ASSERT_EQ(take_error(host, dpt_runtime_load_library(runtime.get(), g_library)).message, "");
  dpt_plugin_instance* instance = nullptr;
  ASSERT_EQ(take_error(host, dpt_plugin_instance_create(runtime.get(), "lion", nullptr, &instance))
                .message,
            "");
  const auto& table = *static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance));
  dpt_instance* handle = dpt_plugin_instance_handle(instance);

  // Two tensors: [5] and [1000] fp32.
  std::vector<int64_t> sizes = {5, 1000};
  int64_t stride = 1;
  std::vector<std::vector<float>> params, grads, expected, momentum;
  for (int64_t n : sizes) {
    params.emplace_back(n);
    grads.emplace_back(n);
    for (int64_t i = 0; i < n; ++i) params.back()[i] = std::sin(0.37f * static_cast<float>(i + n));
    expected.push_back(params.back());
    momentum.emplace_back(n, 0.0f);
  }
  std::vector<DLTensor> param_views, grad_views;
  for (size_t t = 0; t < sizes.size(); ++t) {
    param_views.push_back({params[t].data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &sizes[t], &stride, 0});
    grad_views.push_back({grads[t].data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &sizes[t], &stride, 0});
  }
  const char* names[] = {"embed", "layers.0.w"};
  // lr 1e-2, beta1 from the plugin's default (0.9), beta2 0.95, weight decay 0.1.
  const dpt_param_group group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "all", 1e-2, std::nan(""),
                              0.95, std::nan(""), 0.1, 2, names, param_views.data(),
                              grad_views.data()};
  ASSERT_EQ(take_error(host, table.add_param_group(handle, &group)).message, "");

  const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, 0.5, 2.0};  // lr × 0.5, grads ÷ 2
  const float lr = static_cast<float>(1e-2 * 0.5);
  for (int step = 0; step < 4; ++step) {
    for (size_t t = 0; t < sizes.size(); ++t) {
      for (int64_t i = 0; i < sizes[t]; ++i) {
        grads[t][i] = std::cos(0.11f * static_cast<float>(i * (step + 1))) - 0.25f;
        reference_lion(expected[t][i], momentum[t][i], grads[t][i] / 2.0f, lr, 0.9f, 0.95f, 0.1f);
      }
    }
    ASSERT_EQ(take_error(host, table.step(handle, &args, nullptr)).message, "");
  }
  for (size_t t = 0; t < sizes.size(); ++t) {
    for (int64_t i = 0; i < sizes[t]; ++i) {
      ASSERT_NEAR(params[t][i], expected[t][i], 1e-6) << names[t] << "[" << i << "]";
    }
  }
  ExportedMomentum saved;
  ASSERT_EQ(take_error(host, table.export_state(handle, &save_momentum, &saved)).message, "");
  ASSERT_EQ(saved.names, std::vector<std::string>(names, names + 2));
  for (size_t t = 0; t < sizes.size(); ++t) {
    for (int64_t i = 0; i < sizes[t]; ++i) {
      ASSERT_NEAR(saved.values[t][i], momentum[t][i], 1e-6) << names[t] << "[" << i << "]";
    }
  }

  // bf16 is refused with DPT_INVALID_ARGUMENT.
  std::vector<uint16_t> half(5);
  DLTensor bf16{half.data(), {kDLCPU, 0}, 1, {kDLBfloat, 16, 1}, &sizes[0], &stride, 0};
  const char* bf16_name[] = {"bf16"};
  const dpt_param_group bf16_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "bf16", 1e-3, 0, 0, 0, 0,
                                   1, bf16_name, &bf16, &bf16};
  EXPECT_EQ(take_error(host, table.add_param_group(handle, &bf16_group)).code, DPT_INVALID_ARGUMENT);
  dpt_plugin_instance_destroy(instance);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) g_library = argv[1];
  return RUN_ALL_TESTS();
}
