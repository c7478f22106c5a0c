// Test support: a runtime that scans no default paths (tests load plugins by path), the
// outcome of a call that returns dpt_error*, and a one-tensor fp32 param group.
#pragma once

#include <dopant/runtime.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace dopant::tests {

// Code and message of an error, which is destroyed; code DPT_OK for NULL.
struct Outcome {
  dpt_code code = DPT_OK;
  std::string message;
};

inline Outcome take(dpt_error* error) {
  Outcome outcome;
  if (error != nullptr) {
    outcome.code = dpt_error_get_code(error);
    outcome.message = dpt_error_get_message(error);
    dpt_error_destroy(error);
  }
  return outcome;
}

// Path of a test plugin built into DOPANT_TEST_PLUGIN_DIR.
inline std::string test_plugin_path(const std::string& file) {
  return std::string(DOPANT_TEST_PLUGIN_DIR) + "/" + file;
}

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dpt_runtime_options options{};
    options.struct_size = DPT_RUNTIME_OPTIONS_SIZE_1_0;
    options.skip_default_paths = 1;
    options.log_level = DPT_LOG_WARN;
    options.threads = 2;
    const Outcome created = take(dpt_runtime_create(&options, &runtime_));
    ASSERT_EQ(created.code, DPT_OK) << created.message;
    ASSERT_NE(runtime_, nullptr);
  }
  void TearDown() override { dpt_runtime_destroy(runtime_); }

  Outcome load(const std::string& path) {
    return take(dpt_runtime_load_library(runtime_, path.c_str()));
  }

  dpt_runtime* runtime_ = nullptr;
};

// One fp32 tensor with its gradient, in host memory, and the group that holds it.
struct OneTensorGroup {
  OneTensorGroup(std::vector<float> initial, std::vector<float> gradient)
      : param(std::move(initial)), grad(std::move(gradient)),
        shape(static_cast<int64_t>(param.size())) {
    const DLDevice cpu{kDLCPU, 0};
    const DLDataType fp32{kDLFloat, 32, 1};
    param_view = DLTensor{param.data(), cpu, 1, fp32, &shape, &stride, 0};
    grad_view = DLTensor{grad.data(), cpu, 1, fp32, &shape, &stride, 0};
  }
  OneTensorGroup(const OneTensorGroup&) = delete;
  OneTensorGroup& operator=(const OneTensorGroup&) = delete;

  // A group whose hyper-parameters are NaN (the plugin's configuration applies).
  dpt_param_group group() const {
    const double use_config = std::numeric_limits<double>::quiet_NaN();
    return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "all", use_config, use_config,
                           use_config, use_config, use_config, 1, &name, &param_view,
                           &grad_view};
  }

  std::vector<float> param;
  std::vector<float> grad;
  int64_t shape;
  int64_t stride = 1;
  const char* name = "w";
  DLTensor param_view{};
  DLTensor grad_view{};
};

}  // namespace dopant::tests
