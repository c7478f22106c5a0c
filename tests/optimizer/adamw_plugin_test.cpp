// The `adamw` plugin, loaded through the core runtime on a CPU run, replays the PyTorch
// fixture: 100 steps of three param groups end bit-identical to PyTorch 1.13 in the params
// and in the exported state. With bf16 and fp16 params whose master weights are imported as
// the fp32 initial values, the exported master follows the fp32 trajectory bit for bit.
// The scaled fixture replays the same steps with dpt_step_args' lr_scale (a schedule) and
// grad_scale (loss scaling, unscaled as GradScaler does) away from 1.
#include <dopant/optimizer.h>
#include <dopant/runtime.h>
#include <dopant/sdk/float16.hpp>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "adamw_fixture_data.hpp"
#include "adamw_fixture_file.hpp"

namespace dopant::adamw_kernels::testing {
namespace {

std::string take_message(dpt_error* error) {
  if (error == nullptr) return "";
  std::string message = dpt_error_get_message(error);
  dpt_error_destroy(error);
  return message.empty() ? "(error without message)" : message;
}

// One fixture tensor as the plugin sees it: parameter and gradient in `dtype`, host memory.
struct PluginTensor {
  std::string name;
  std::vector<unsigned char> param;
  std::vector<unsigned char> grad;
  int64_t shape;
  int64_t stride = 1;
  DLTensor param_view;
  DLTensor grad_view;
};

uint16_t narrow(DLDataType dtype, float value) {
  return dtype.code == kDLBfloat ? sdk::float_to_bf16(value) : sdk::float_to_half(value);
}

// Writes [count] fp32 values into `bytes` as `dtype`.
void store(DLDataType dtype, const std::vector<float>& values, std::vector<unsigned char>& bytes) {
  if (dtype.bits == 32) {
    std::memcpy(bytes.data(), values.data(), values.size() * sizeof(float));
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t half = narrow(dtype, values[i]);
    std::memcpy(bytes.data() + 2 * i, &half, 2);
  }
}

struct Exported {
  std::map<std::string, std::vector<float>> values;  // "tensor/state" -> fp32 values
};

dpt_error* keep_state(void* context, const char* tensor, const char* state,
                      const DLTensor* value) {
  int64_t count = 1;
  for (int d = 0; d < value->ndim; ++d) count *= value->shape[d];
  const auto* data = static_cast<const float*>(value->data);
  static_cast<Exported*>(context)->values[std::string(tensor) + "/" + state] =
      std::vector<float>(data, data + count);
  return nullptr;
}

// One replay: the parameter dtype, and whether it is the scaled fixture (fp32 only: a
// scaled gradient has up to 10 significant bits, more than bf16 or fp16 hold).
struct ReplayCase {
  const char* name;
  DLDataType dtype;
  bool scaled;
};

void PrintTo(const ReplayCase& c, std::ostream* out) { *out << c.name; }

class AdamwPluginTest : public ::testing::TestWithParam<ReplayCase> {
 protected:
  void SetUp() override {
    dpt_runtime_options options{};
    options.struct_size = DPT_RUNTIME_OPTIONS_SIZE_1_0;
    options.skip_default_paths = 1;
    options.log_level = DPT_LOG_WARN;
    options.threads = 2;
    ASSERT_EQ("", take_message(dpt_runtime_create(&options, &runtime_)));
    ASSERT_EQ("", take_message(dpt_runtime_load_library(runtime_, DOPANT_ADAMW_PLUGIN)));
    ASSERT_EQ("", take_message(dpt_plugin_instance_create(runtime_, "adamw", nullptr,
                                                          &instance_)));
  }
  void TearDown() override {
    dpt_plugin_instance_destroy(instance_);
    dpt_runtime_destroy(runtime_);
  }
  const dpt_optimizer_v1& table() const {
    return *static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance_));
  }

  dpt_runtime* runtime_ = nullptr;
  dpt_plugin_instance* instance_ = nullptr;
};

TEST_P(AdamwPluginTest, ReplaysPyTorchBitForBit) {
  const DLDataType dtype = GetParam().dtype;
  const bool scaled = GetParam().scaled;
  const Fixture fixture = read_fixture(scaled ? DOPANT_ADAMW_SCALED_FIXTURE : DOPANT_ADAMW_FIXTURE);
  const size_t width = dtype.bits / 8;
  std::vector<PluginTensor> tensors(fixture.tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    PluginTensor& p = tensors[t];
    const std::vector<float>& initial = fixture.tensors[t].initial_param;
    p.name = "tensor" + std::to_string(t);
    p.shape = static_cast<int64_t>(initial.size());
    p.param.resize(initial.size() * width);
    p.grad.resize(initial.size() * width);
    store(dtype, initial, p.param);
    p.param_view = DLTensor{p.param.data(), {kDLCPU, 0}, 1, dtype, &p.shape, &p.stride, 0};
    p.grad_view = DLTensor{p.grad.data(), {kDLCPU, 0}, 1, dtype, &p.shape, &p.stride, 0};
  }
  for (size_t g = 0; g < fixture.groups.size(); ++g) {
    std::vector<const char*> names;
    std::vector<DLTensor> params;
    std::vector<DLTensor> grads;
    for (size_t t = 0; t < tensors.size(); ++t) {
      if (fixture.tensors[t].group != g) continue;
      names.push_back(tensors[t].name.c_str());
      params.push_back(tensors[t].param_view);
      grads.push_back(tensors[t].grad_view);
    }
    const FixtureGroup& h = fixture.groups[g];
    const std::string group_name = "group" + std::to_string(g);
    const dpt_param_group group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, group_name.c_str(), h.lr,
                                h.beta1, h.beta2, h.eps, h.weight_decay,
                                static_cast<uint32_t>(names.size()), names.data(),
                                params.data(), grads.data()};
    ASSERT_EQ("", take_message(table().add_param_group(dpt_plugin_instance_handle(instance_),
                                                       &group)));
  }
  if (dtype.bits == 16) {  // master weights start from the fp32 values, not the rounded ones
    for (size_t t = 0; t < tensors.size(); ++t) {
      std::vector<float> initial = fixture.tensors[t].initial_param;
      const DLTensor view{initial.data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &tensors[t].shape,
                          &tensors[t].stride, 0};
      ASSERT_EQ("", take_message(table().import_state(dpt_plugin_instance_handle(instance_),
                                                      tensors[t].name.c_str(), "master",
                                                      &view)));
    }
  }
  for (uint64_t step = 1; step <= fixture.steps; ++step) {
    dpt_step_args args = DPT_STEP_ARGS_INIT;
    if (scaled) {
      args.lr_scale = fixture_lr_scale(step);
      args.grad_scale = fixture_loss_scale(step);
    }
    for (size_t t = 0; t < tensors.size(); ++t) {
      std::vector<float> grad(static_cast<size_t>(tensors[t].shape));
      for (size_t i = 0; i < grad.size(); ++i) {
        grad[i] = fixture_gradient(fixture.seed, t, step, i) * static_cast<float>(args.grad_scale);  // exact
      }
      store(dtype, grad, tensors[t].grad);
    }
    ASSERT_EQ("", take_message(table().step(dpt_plugin_instance_handle(instance_), &args,
                                            nullptr)));
  }
  Exported exported;
  ASSERT_EQ("", take_message(table().export_state(dpt_plugin_instance_handle(instance_),
                                                  &keep_state, &exported)));
  const auto bits = [](const std::vector<float>& v) {
    std::vector<uint32_t> out;
    for (float x : v) out.push_back(std::bit_cast<uint32_t>(x));
    return out;
  };
  for (size_t t = 0; t < tensors.size(); ++t) {
    const FixtureTensor& expected = fixture.tensors[t];
    const std::string prefix = tensors[t].name + "/";
    EXPECT_EQ(exported.values[prefix + "step"], std::vector<float>{100.0f}) << prefix;
    EXPECT_EQ(bits(exported.values[prefix + "exp_avg"]), bits(expected.final_exp_avg)) << prefix;
    EXPECT_EQ(bits(exported.values[prefix + "exp_avg_sq"]), bits(expected.final_exp_avg_sq))
        << prefix;
    std::vector<unsigned char> expected_param(tensors[t].param.size());
    store(dtype, expected.final_param, expected_param);
    EXPECT_EQ(tensors[t].param, expected_param) << prefix << "param";
    if (dtype.bits == 16) {
      EXPECT_EQ(bits(exported.values[prefix + "master"]), bits(expected.final_param)) << prefix;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, AdamwPluginTest,
                         ::testing::Values(ReplayCase{"f32", {kDLFloat, 32, 1}, false},
                                           ReplayCase{"bf16", {kDLBfloat, 16, 1}, false},
                                           ReplayCase{"f16", {kDLFloat, 16, 1}, false},
                                           ReplayCase{"f32_scaled", {kDLFloat, 32, 1}, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dopant::adamw_kernels::testing
