// Buffers of one tensor for the kernel tests (param in its storage type, gradient, master
// weights, moments), filled with awkward values, and a bit-for-bit comparison of two of them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_kernels::testing {

struct TestTensor {
  ParamDtype type;
  size_t numel;
  std::vector<unsigned char> param;  // [numel] of `type`
  std::vector<unsigned char> grad;   // [numel] of `type`
  std::vector<float> master;         // [numel] for bf16/f16; empty for f32
  std::vector<float> exp_avg;        // [numel]
  std::vector<float> exp_avg_sq;     // [numel]

  TensorRefs refs();
};

// Finite values over a wide exponent range with zeros, negative zeros and subnormals mixed
// in; 16-bit gradients are random finite bit patterns; 16-bit params are the rounded master.
TestTensor random_tensor(ParamDtype type, size_t numel, uint64_t seed);

// Success when every buffer of `actual` has the bits of `expected`; else names the first
// differing buffer and element.
::testing::AssertionResult same_bits(const TestTensor& expected, const TestTensor& actual);
// The same, except that any two NaNs match: CUDA produces canonical NaNs, x86 others.
::testing::AssertionResult same_bits_but_nan_payloads(const TestTensor& expected,
                                                      const TestTensor& actual);

// "f32", "bf16", "f16": for test names.
std::string_view dtype_name(ParamDtype type);

// Hyper-parameter sets the kernel tests step through: ordinary, extreme (eps 0, so some
// denominators are 0; grad and lr scales; large steps) and a non-power-of-two grad scale.
std::vector<StepHyper> test_hypers();

}  // namespace dopant::adamw_kernels::testing
