// The c-sgd example plugin through the C API: momentum state survives export and import
// bit-exactly, `memory` reports the buffers, group hyper-parameters override the
// configuration only when not NaN, loss and lr scales apply, bad inputs are refused with
// messages naming the tensor; and the conformance kit (`dopant check`) passes.
#include <dopant/runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace dopant::tests {
namespace {

const std::string kPluginPath = std::string(DOPANT_PLUGIN_BUILD_DIR) + "/dopant-c-sgd.so";
constexpr double kConfigured = std::numeric_limits<double>::quiet_NaN();

std::string message_of(dpt_error* error) {
  std::string message = error != nullptr ? dpt_error_get_message(error) : "";
  dpt_error_destroy(error);
  return message;
}

// fp32 tensors (param + grad) with names, and the param group over them.
struct Tensors {
  explicit Tensors(const std::vector<int64_t>& sizes) : shapes(sizes) {
    for (size_t k = 0; k < sizes.size(); ++k) {
      names.push_back("t" + std::to_string(k));
      params.emplace_back(static_cast<size_t>(sizes[k]));
      grads.emplace_back(static_cast<size_t>(sizes[k]));
      for (int64_t i = 0; i < sizes[k]; ++i)
        params[k][i] = 0.25f * static_cast<float>(i % 13) - 1.0f;
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      name_pointers.push_back(names[k].c_str());
      param_views.push_back(view(params[k].data(), k));
      grad_views.push_back(view(grads[k].data(), k));
    }
  }
  Tensors(const Tensors&) = delete;
  Tensors& operator=(const Tensors&) = delete;

  DLTensor view(float* data, size_t k) {
    return DLTensor{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &shapes[k], &unit_stride, 0};
  }
  void set_grads(int step) {
    for (size_t k = 0; k < grads.size(); ++k)
      for (size_t i = 0; i < grads[k].size(); ++i)
        grads[k][i] =
            0.1f * static_cast<float>((i * 7 + k + static_cast<size_t>(step) * 3) % 11) - 0.5f;
  }
  dpt_param_group group(double lr = kConfigured, double momentum = kConfigured) const {
    return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "g", lr, momentum, kConfigured,
                           kConfigured, kConfigured, static_cast<uint32_t>(names.size()),
                           name_pointers.data(), param_views.data(), grad_views.data()};
  }

  std::vector<int64_t> shapes;
  int64_t unit_stride = 1;
  std::vector<std::string> names;
  std::vector<const char*> name_pointers;
  std::vector<std::vector<float>> params, grads;
  std::vector<DLTensor> param_views, grad_views;
};

struct InstanceDeleter {
  void operator()(dpt_plugin_instance* instance) const { dpt_plugin_instance_destroy(instance); }
};
using Instance = std::unique_ptr<dpt_plugin_instance, InstanceDeleter>;

class CSgdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dpt_runtime_options options{};
    options.struct_size = DPT_RUNTIME_OPTIONS_SIZE_1_0;
    options.skip_default_paths = 1;
    options.log_level = DPT_LOG_WARN;
    ASSERT_EQ(message_of(dpt_runtime_create(&options, &runtime_)), "");
    ASSERT_EQ(message_of(dpt_runtime_load_library(runtime_, kPluginPath.c_str())), "");
    ASSERT_EQ(message_of(workloads::declare_builtin(runtime_)), "");
  }
  void TearDown() override {
    for (dpt_run_config* config : configs_) dpt_run_config_destroy(config);
    dpt_runtime_destroy(runtime_);
  }

  // The [optimizer] parameters of a run file whose table holds `settings` (TOML lines);
  // the config lives as long as the test.
  const dpt_config* optimizer_params(const std::string& settings) {
    const std::string text =
        "[run]\nworkload = \"optimizer-step\"\n[optimizer]\nplugin = \"c-sgd\"\n" + settings;
    dpt_run_config* config = nullptr;
    EXPECT_EQ(message_of(dpt_run_config_parse(runtime_, text.c_str(), "c_sgd_test.toml", &config)),
              "");
    if (config == nullptr) return nullptr;
    configs_.push_back(config);
    return dpt_run_config_slot_params(config, 0, "optimizer");
  }

  // An instance configured by `settings`; null (with a failure) when refused.
  Instance create(const std::string& settings) {
    const dpt_config* params = optimizer_params(settings);
    dpt_plugin_instance* raw = nullptr;
    if (params != nullptr) {
      EXPECT_EQ(message_of(dpt_plugin_instance_create(runtime_, "c-sgd", params, &raw)), "");
    }
    return Instance(raw);
  }

  static const dpt_optimizer_v1& table(const Instance& instance) {
    return *static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance.get()));
  }
  static dpt_error* add(const Instance& instance, const dpt_param_group& group) {
    return table(instance).add_param_group(dpt_plugin_instance_handle(instance.get()), &group);
  }
  static dpt_error* step(const Instance& instance, double lr_scale = 1.0, double grad_scale = 1.0) {
    const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, lr_scale, grad_scale, 0, nullptr};
    return table(instance).step(dpt_plugin_instance_handle(instance.get()), &args, nullptr);
  }

  dpt_runtime* runtime_ = nullptr;
  std::vector<dpt_run_config*> configs_;
};

// Exported state, copied out of the visitor's views.
struct Exported {
  std::vector<std::string> tensors, states;
  std::vector<std::vector<float>> values;
};

dpt_error* keep_state(void* context, const char* tensor, const char* state, const DLTensor* value) {
  auto& exported = *static_cast<Exported*>(context);
  const auto* data = static_cast<const float*>(value->data);
  exported.tensors.emplace_back(tensor);
  exported.states.emplace_back(state);
  exported.values.emplace_back(data, data + value->shape[0]);
  return nullptr;
}

TEST_F(CSgdTest, MomentumStateRoundTripsBitExactly) {
  const std::string settings = "lr = 0.05\nmomentum = 0.9\ndampening = 0.2\nweight_decay = 0.01\n";
  const Instance original = create(settings);
  const Instance restored = create(settings);
  ASSERT_TRUE(original && restored);
  Tensors a({37, 100003}), b({37, 100003});
  ASSERT_EQ(message_of(add(original, a.group())), "");
  for (int s = 0; s < 2; ++s) {
    a.set_grads(s);
    ASSERT_EQ(message_of(step(original)), "");
  }
  Exported exported;
  ASSERT_EQ(message_of(table(original).export_state(dpt_plugin_instance_handle(original.get()),
                                                    keep_state, &exported)),
            "");
  ASSERT_EQ(exported.tensors, (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(exported.states, (std::vector<std::string>{"momentum_buffer", "momentum_buffer"}));

  for (size_t k = 0; k < a.params.size(); ++k)
    std::copy(a.params[k].begin(), a.params[k].end(), b.params[k].begin());
  ASSERT_EQ(message_of(add(restored, b.group())), "");
  for (size_t k = 0; k < exported.tensors.size(); ++k) {
    int64_t shape = static_cast<int64_t>(exported.values[k].size()), stride = 1;
    const DLTensor view{exported.values[k].data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1},
                        &shape, &stride, 0};
    ASSERT_EQ(message_of(table(restored).import_state(dpt_plugin_instance_handle(restored.get()),
                                                      exported.tensors[k].c_str(),
                                                      "momentum_buffer", &view)),
              "");
  }
  a.set_grads(2);
  b.set_grads(2);
  ASSERT_EQ(message_of(step(original)), "");
  ASSERT_EQ(message_of(step(restored)), "");
  for (size_t k = 0; k < a.params.size(); ++k)
    EXPECT_EQ(std::memcmp(a.params[k].data(), b.params[k].data(), 4 * a.params[k].size()), 0) << k;
}

TEST_F(CSgdTest, MemoryReportsMomentumBuffersOnTheDevice) {
  const Instance plain = create("momentum = 0.0\n");
  const Instance heavy = create("momentum = 0.5\n");
  ASSERT_TRUE(plain && heavy);
  Tensors p({1000, 24}), h({1000, 24});
  ASSERT_EQ(message_of(add(plain, p.group())), "");
  ASSERT_EQ(message_of(add(heavy, h.group())), "");
  ASSERT_NE(table(heavy).memory, nullptr);
  dpt_optimizer_memory memory{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 1, 1, 1};
  ASSERT_EQ(message_of(table(plain).memory(dpt_plugin_instance_handle(plain.get()), &memory)), "");
  EXPECT_EQ(memory.device_state_bytes, 0u);
  ASSERT_EQ(message_of(table(heavy).memory(dpt_plugin_instance_handle(heavy.get()), &memory)), "");
  EXPECT_EQ(memory.device_state_bytes, 1024u * 4);
  EXPECT_EQ(memory.host_state_bytes, 0u);
  EXPECT_EQ(memory.device_staging_bytes, 0u);
}

TEST_F(CSgdTest, GroupValuesOverrideTheConfigurationUnlessNaN) {
  const Instance configured = create("lr = 0.5\n");
  const Instance overridden = create("lr = 0.5\n");
  ASSERT_TRUE(configured && overridden);
  Tensors c({5}), o({5});
  ASSERT_EQ(message_of(add(configured, c.group())), "");
  ASSERT_EQ(message_of(add(overridden, o.group(0.25))), "");
  c.set_grads(0);
  o.set_grads(0);
  const std::vector<float> start = c.params[0];
  ASSERT_EQ(message_of(step(configured)), "");
  ASSERT_EQ(message_of(step(overridden)), "");
  for (size_t i = 0; i < start.size(); ++i) {
    EXPECT_EQ(c.params[0][i], start[i] - 0.5f * c.grads[0][i]) << i;
    EXPECT_EQ(o.params[0][i], start[i] - 0.25f * o.grads[0][i]) << i;
  }
}

TEST_F(CSgdTest, StepArgsScaleLearningRateAndGradients) {
  const Instance sgd = create("lr = 0.5\n");
  ASSERT_TRUE(sgd);
  Tensors t({9});
  ASSERT_EQ(message_of(add(sgd, t.group())), "");
  t.set_grads(0);
  const std::vector<float> start = t.params[0];
  ASSERT_EQ(message_of(step(sgd, 0.5, 4.0)), "");
  for (size_t i = 0; i < start.size(); ++i)
    EXPECT_EQ(t.params[0][i], start[i] - 0.25f * (t.grads[0][i] / 4.0f)) << i;
}

// Gradients that move every step (dpt_step_args.grads, as PyTorch's zero_grad(set_to_none=
// True) makes them) update exactly like gradients written in place; a step without them
// reads the gradients of add_param_group again; a wrong count is refused.
TEST_F(CSgdTest, PerStepGradientsUpdateLikeGradientsInPlace) {
  const std::string settings = "lr = 0.05\nmomentum = 0.9\nweight_decay = 0.01\n";
  const Instance in_place = create(settings);
  const Instance moving = create(settings);
  ASSERT_TRUE(in_place && moving);
  Tensors a({37, 1001}), b({37, 1001});
  ASSERT_EQ(message_of(add(in_place, a.group())), "");
  ASSERT_EQ(message_of(add(moving, b.group())), "");  // b.grads stay zero
  for (int s = 0; s < 3; ++s) {
    a.set_grads(s);
    ASSERT_EQ(message_of(step(in_place)), "");
    std::vector<std::vector<float>> fresh(a.grads);  // new memory every step
    std::vector<DLTensor> views;
    for (size_t k = 0; k < fresh.size(); ++k) views.push_back(b.view(fresh[k].data(), k));
    dpt_step_args args = DPT_STEP_ARGS_INIT;
    args.grad_count = static_cast<uint32_t>(views.size());
    args.grads = views.data();
    ASSERT_EQ(message_of(table(moving).step(dpt_plugin_instance_handle(moving.get()), &args, nullptr)), "");
  }
  EXPECT_EQ(a.params, b.params);

  a.grads = b.grads;  // zeros: what `moving` reads without per-step gradients
  ASSERT_EQ(message_of(step(in_place)), "");
  ASSERT_EQ(message_of(step(moving)), "");
  EXPECT_EQ(a.params, b.params);

  dpt_step_args miscounted = DPT_STEP_ARGS_INIT;
  miscounted.grad_count = 1;
  miscounted.grads = b.grad_views.data();
  EXPECT_EQ(message_of(table(moving).step(dpt_plugin_instance_handle(moving.get()), &miscounted, nullptr)),
            "c-sgd: per-step gradients must be one per tensor of the instance");
}

TEST_F(CSgdTest, RefusesWhatItCannotHandleNamingTheTensor) {
  const Instance sgd = create("momentum = 0.9\n");
  ASSERT_TRUE(sgd);
  Tensors t({8});
  t.param_views[0].dtype = DLDataType{kDLBfloat, 16, 1};
  dpt_error* error = add(sgd, t.group());
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  EXPECT_NE(message_of(error).find("`t0`"), std::string::npos);

  t.param_views[0].dtype = DLDataType{kDLFloat, 32, 1};
  ASSERT_EQ(message_of(add(sgd, t.group())), "");
  dpt_instance* handle = dpt_plugin_instance_handle(sgd.get());
  std::vector<float> wrong(7);
  int64_t shape = 7, stride = 1;
  const DLTensor seven{wrong.data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &shape, &stride, 0};
  error = table(sgd).import_state(handle, "nope", "momentum_buffer", &seven);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_NOT_FOUND);
  dpt_error_destroy(error);
  error = table(sgd).import_state(handle, "t0", "momentum_buffer", &seven);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  dpt_error_destroy(error);
  error = table(sgd).import_state(handle, "t0", "exp_avg", &seven);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  dpt_error_destroy(error);

  // A shape whose element count wraps 64 bits (2^62 x 4 = 0 mod 2^64) is refused, not sized
  // as an empty momentum buffer.
  Tensors huge({8});
  int64_t wrapping_shape[] = {int64_t{1} << 62, 4};
  int64_t wrapping_strides[] = {4, 1};
  for (DLTensor* view : {&huge.param_views[0], &huge.grad_views[0]}) {
    view->ndim = 2;
    view->shape = wrapping_shape;
    view->strides = wrapping_strides;
  }
  const Instance fresh = create("momentum = 0.9\n");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(message_of(add(fresh, huge.group())), "c-sgd: parameter `t0` has too many elements");
}

TEST_F(CSgdTest, NesterovWithoutMomentumIsRefused) {
  const dpt_config* params = optimizer_params("nesterov = true\n");
  ASSERT_NE(params, nullptr);
  dpt_plugin_instance* raw = nullptr;
  dpt_error* error = dpt_plugin_instance_create(runtime_, "c-sgd", params, &raw);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(dpt_error_get_code(error), DPT_INVALID_ARGUMENT);
  EXPECT_NE(message_of(error).find("nesterov"), std::string::npos);
  EXPECT_EQ(raw, nullptr);
}

TEST(CSgdConformance, PassesTheConformanceKit) {
  const std::string command =
      std::string("'") + DOPANT_CLI + "' check '" + kPluginPath + "' > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
}

}  // namespace
}  // namespace dopant::tests
