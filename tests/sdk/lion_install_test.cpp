// Loads the Lion plugin built out of tree against the installed package (path given on the
// command line by install_test.cmake), drives steps through its optimizer table on fixed
// data and compares parameters and momentum to a plain Lion written here. Then runs the
// *installed* dopant CLI on the optimizer-step workload with that plugin and recomputes the
// final parameters from the same synthetic data.
#include <dopant/runtime.h>

#include "synthetic.hpp"
#include "test_runtime.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

const char* g_library = nullptr;
const char* g_installed_cli = nullptr;

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

  const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, 0.5, 2.0, 0, nullptr};  // lr × 0.5, grads ÷ 2
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

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

TEST(SdkInstall, InstalledCliRunsLionOnOptimizerStep) {
  ASSERT_NE(g_installed_cli, nullptr) << "usage: sdk_lion_install_test PATH/dopant-lion.so PREFIX/bin/dopant";
  namespace fs = std::filesystem;
  using dopant::workloads::gradient_stream;
  using dopant::workloads::parameter_stream;
  using dopant::workloads::split_sizes;
  using dopant::workloads::synthetic_uniform;
  constexpr uint64_t kParams = 30011, kSeed = 3;
  constexpr uint32_t kTensors = 3, kSteps = 5;
  const float lr = 3e-3f, beta1 = 0.9f, beta2 = 0.99f, wd = 0.05f;

  const fs::path folder = fs::path(::testing::TempDir()) / ("dopant-lion-cli-" + std::to_string(getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  const fs::path config = folder / "lion.toml", output = folder / "params.f32", log = folder / "cli.log";
  std::ofstream(config) << "[run]\nworkload = \"optimizer-step\"\nrepetitions = 1\n\n"
                        << "[workload]\nparams = " << kParams << "\ntensors = " << kTensors << "\nsteps = " << kSteps
                        << "\nseed = " << kSeed << "\noutput = \"" << output.string() << "\"\n\n"
                        << "[optimizer]\nplugin = \"lion\"\nlr = 3e-3\nbeta1 = 0.9\nbeta2 = 0.99\nweight_decay = 0.05\n";
  const std::string plugin_dir = fs::path(g_library).parent_path().string();
  const std::string command = std::string("'") + g_installed_cli + "' --plugin-path '" + plugin_dir + "' run '" +
                              config.string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << read_file(log);

  const std::string bytes = read_file(output);
  ASSERT_EQ(bytes.size(), kParams * 4);
  uint64_t offset = 0;
  for (const uint64_t size : split_sizes(kParams, kTensors)) {
    for (uint64_t i = 0; i < size; ++i) {
      float p = synthetic_uniform(kSeed, parameter_stream(), offset + i), m = 0.0f;
      for (uint32_t step = 0; step < kSteps; ++step) {
        reference_lion(p, m, synthetic_uniform(kSeed, gradient_stream(step), offset + i), lr, beta1, beta2, wd);
      }
      float got;
      std::memcpy(&got, bytes.data() + 4 * (offset + i), 4);  // little-endian, as on this machine
      ASSERT_NEAR(got, p, 1e-6) << "element " << offset + i;
    }
    offset += size;
  }
  fs::remove_all(folder);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) g_library = argv[1];
  if (argc > 2) g_installed_cli = argv[2];
  return RUN_ALL_TESTS();
}
