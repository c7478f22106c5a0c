// Replays the 100 PyTorch 1.13 AdamW steps of fixtures/adamw_fixture.bin with every CPU
// variant. fp32: params, exp_avg and exp_avg_sq must be within 1e-6 relative of PyTorch's,
// and are in fact bit-identical. bf16/f16: the fixture's gradients have at most 8 significant
// bits, so the 16-bit gradients carry exactly the fp32 values; the fp32 master weights then
// see the same inputs as PyTorch's fp32 params and must end bit-identical to them, and the
// 16-bit params must be the rounded master: the 16-bit copy never feeds back into the update.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "adamw_fixture_data.hpp"
#include "adamw_fixture_file.hpp"
#include "adamw_test_tensors.hpp"
#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels::testing {
namespace {

const Fixture& fixture() {
  static const Fixture loaded = read_fixture(DOPANT_ADAMW_FIXTURE);
  return loaded;
}

StepHyper hyper_at(const FixtureGroup& group, uint64_t step) {
  return StepHyper{.lr = group.lr, .beta1 = group.beta1, .beta2 = group.beta2,
                   .eps = group.eps, .weight_decay = group.weight_decay, .step = step};
}

std::vector<float> gradients(size_t tensor, uint64_t step, size_t numel) {
  std::vector<float> grad(numel);
  for (size_t i = 0; i < numel; ++i) grad[i] = fixture_gradient(fixture().seed, tensor, step, i);
  return grad;
}

// Largest |actual - expected| / |expected| (a nonzero difference from 0 counts as infinite)
// and the number of elements whose bits differ.
struct Deviation {
  double max_relative = 0.0;
  size_t mismatched_bits = 0;

  void add(const std::vector<float>& expected, const std::vector<float>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      if (std::bit_cast<uint32_t>(expected[i]) == std::bit_cast<uint32_t>(actual[i])) continue;
      ++mismatched_bits;
      const double difference = std::abs(double{actual[i]} - double{expected[i]});
      max_relative = std::max(max_relative, expected[i] == 0.0f
                                                ? std::numeric_limits<double>::infinity()
                                                : difference / std::abs(double{expected[i]}));
    }
  }
};

TEST(PyTorchFixture, GeneratorTwinReproducesTheInitialParams) {
  ASSERT_EQ(fixture().steps, 100u);
  for (size_t t = 0; t < fixture().tensors.size(); ++t) {
    const std::vector<float>& stored = fixture().tensors[t].initial_param;
    for (size_t i = 0; i < stored.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(stored[i]),
                std::bit_cast<uint32_t>(fixture_initial_param(fixture().seed, t, i)))
          << "tensor " << t << " element " << i;
    }
  }
}

class PyTorchReplay : public ::testing::TestWithParam<Variant> {};

TEST_P(PyTorchReplay, Fp32MatchesPyTorch) {
  const Variant variant = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  Deviation deviation;
  for (size_t t = 0; t < fixture().tensors.size(); ++t) {
    const FixtureTensor& expected = fixture().tensors[t];
    const size_t numel = expected.initial_param.size();
    std::vector<float> param = expected.initial_param;
    std::vector<float> exp_avg(numel, 0.0f);
    std::vector<float> exp_avg_sq(numel, 0.0f);
    for (uint64_t step = 1; step <= fixture().steps; ++step) {
      const std::vector<float> grad = gradients(t, step, numel);
      const StepScalars scalars = make_step_scalars(hyper_at(fixture().groups[expected.group], step));
      step_range(variant, ParamDtype::f32, scalars,
                 {param.data(), grad.data(), nullptr, exp_avg.data(), exp_avg_sq.data()}, 0, numel);
    }
    deviation.add(expected.final_param, param);
    deviation.add(expected.final_exp_avg, exp_avg);
    deviation.add(expected.final_exp_avg_sq, exp_avg_sq);
  }
  std::printf("[ %s ] fp32 vs PyTorch after %u steps: max relative error %g, %zu elements "
              "with other bits\n", std::string(variant_name(variant)).c_str(), fixture().steps,
              deviation.max_relative, deviation.mismatched_bits);
  RecordProperty("max_relative_error", std::to_string(deviation.max_relative));
  EXPECT_LE(deviation.max_relative, 1e-6);
  EXPECT_EQ(deviation.mismatched_bits, 0u) << "expected bit-identical results";
}

TEST_P(PyTorchReplay, SixteenBitParamsFollowTheFp32TrajectoryInTheirMaster) {
  const Variant variant = GetParam();
  if (!variant_supported(variant)) GTEST_SKIP() << variant_name(variant) << " needs a newer CPU";
  for (ParamDtype type : {ParamDtype::bf16, ParamDtype::f16}) {
    Deviation deviation;
    for (size_t t = 0; t < fixture().tensors.size(); ++t) {
      const FixtureTensor& expected = fixture().tensors[t];
      const size_t numel = expected.initial_param.size();
      std::vector<float> master = expected.initial_param;
      std::vector<uint16_t> param(numel);
      narrow_from_float(variant, type, master.data(), param.data(), numel);
      std::vector<float> exp_avg(numel, 0.0f);
      std::vector<float> exp_avg_sq(numel, 0.0f);
      std::vector<uint16_t> grad(numel);
      std::vector<float> grad_back(numel);
      for (uint64_t step = 1; step <= fixture().steps; ++step) {
        const std::vector<float> grad32 = gradients(t, step, numel);
        narrow_from_float(variant, type, grad32.data(), grad.data(), numel);
        widen_to_float(variant, type, grad.data(), grad_back.data(), numel);
        ASSERT_EQ(grad_back, grad32) << "fixture gradients must be exact in 16 bits";
        const StepScalars scalars = make_step_scalars(hyper_at(fixture().groups[expected.group], step));
        step_range(variant, type, scalars,
                   {param.data(), grad.data(), master.data(), exp_avg.data(), exp_avg_sq.data()},
                   0, numel);
      }
      deviation.add(expected.final_param, master);
      deviation.add(expected.final_exp_avg, exp_avg);
      deviation.add(expected.final_exp_avg_sq, exp_avg_sq);
      std::vector<uint16_t> rounded_master(numel);
      narrow_from_float(Variant::reference, type, master.data(), rounded_master.data(), numel);
      EXPECT_EQ(param, rounded_master) << dtype_name(type) << " tensor " << t;
    }
    EXPECT_EQ(deviation.mismatched_bits, 0u)
        << dtype_name(type) << " master: max relative error " << deviation.max_relative;
  }
}

INSTANTIATE_TEST_SUITE_P(CpuVariants, PyTorchReplay,
                         ::testing::Values(Variant::reference, Variant::scalar, Variant::avx2,
                                           Variant::avx512),
                         [](const auto& info) { return std::string(variant_name(info.param)); });

}  // namespace
}  // namespace dopant::adamw_kernels::testing
