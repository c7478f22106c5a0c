// make_step_scalars follows PyTorch's scalar arithmetic: doubles first, one rounding to
// float per scalar; lr_scale and grad_scale enter where the documentation says.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "dopant/adamw_kernels/step_scalars.hpp"

namespace dopant::adamw_kernels {
namespace {

const StepHyper kHyper{.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8,
                       .weight_decay = 1e-2, .step = 3};

TEST(StepScalars, RoundOnceFromDouble) {
  const StepScalars s = make_step_scalars(kHyper);
  // 1 - beta1 is formed in double, as in Python, not from the rounded beta1.
  EXPECT_EQ(s.one_minus_beta1, static_cast<float>(1.0 - 0.9));
  EXPECT_NE(s.one_minus_beta1, 1.0f - static_cast<float>(0.9));
  EXPECT_EQ(s.decay, static_cast<float>(1.0 - 1e-3 * 1e-2));
  EXPECT_EQ(s.bias_correction2_sqrt, static_cast<float>(std::sqrt(1.0 - std::pow(0.999, 3.0))));
  EXPECT_EQ(s.neg_step_size, static_cast<float>(-(1e-3 / (1.0 - std::pow(0.9, 3.0)))));
  EXPECT_EQ(s.eps, 1e-8f);
  EXPECT_EQ(s.inv_grad_scale, 1.0f);
}

TEST(StepScalars, LrScaleMultipliesLrInDouble) {
  StepHyper scaled = kHyper;
  scaled.lr = 2e-3;
  scaled.lr_scale = 0.5;
  const StepScalars a = make_step_scalars(kHyper);
  const StepScalars b = make_step_scalars(scaled);
  EXPECT_EQ(a.neg_step_size, b.neg_step_size);
  EXPECT_EQ(a.decay, b.decay);
  scaled.lr_scale = 0.25;
  EXPECT_NE(make_step_scalars(scaled).neg_step_size, a.neg_step_size);
}

TEST(StepScalars, GradScaleBecomesAFloatReciprocal) {
  StepHyper scaled = kHyper;
  scaled.grad_scale = 65536.0;
  EXPECT_EQ(make_step_scalars(scaled).inv_grad_scale, 0x1p-16f);
  scaled.grad_scale = 3.0;
  EXPECT_EQ(make_step_scalars(scaled).inv_grad_scale, static_cast<float>(1.0 / 3.0));
}

TEST(StepScalars, RejectsStepZeroAndBadGradScales) {
  StepHyper bad = kHyper;
  bad.step = 0;
  EXPECT_THROW(make_step_scalars(bad), std::invalid_argument);
  for (double scale : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN()}) {
    bad = kHyper;
    bad.grad_scale = scale;
    EXPECT_THROW(make_step_scalars(bad), std::invalid_argument) << scale;
  }
}

}  // namespace
}  // namespace dopant::adamw_kernels
