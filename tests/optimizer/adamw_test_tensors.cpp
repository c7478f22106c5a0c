// random_tensor, same_bits and test_hypers for the kernel tests.
#include "adamw_test_tensors.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include <dopant/sdk/float16.hpp>

namespace dopant::adamw_kernels::testing {
namespace {

// A finite float: usually sign * [1, 2) * 2^[min_exp, max_exp]; 2% zeros (either sign),
// 2% subnormals.
float awkward_float(std::mt19937_64& rng, int min_exp, int max_exp, bool allow_negative) {
  std::uniform_int_distribution<int> kind(0, 99);
  std::uniform_int_distribution<int> exponent(min_exp, max_exp);
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  const bool negative = allow_negative && (rng() & 1u) != 0;
  float value = 0.0f;
  switch (kind(rng)) {
    case 0:
    case 1: value = 0.0f; break;
    case 2:
    case 3: value = std::bit_cast<float>(static_cast<uint32_t>(rng() % 0x007fffffu) + 1u); break;
    default: value = std::ldexp(significand(rng), exponent(rng)); break;
  }
  return negative ? -value : value;
}

// A random 16-bit pattern whose exponent field is not all ones (finite).
uint16_t finite_half_bits(std::mt19937_64& rng, ParamDtype type) {
  const uint16_t exponent_mask = type == ParamDtype::bf16 ? 0x7f80u : 0x7c00u;
  for (;;) {
    const auto bits = static_cast<uint16_t>(rng());
    if ((bits & exponent_mask) != exponent_mask) return bits;
  }
}

// Whether `bits`, an element of `width` bytes (fp32, or `type` when 2), is a NaN.
bool is_nan(uint32_t bits, size_t width, ParamDtype type) {
  if (width == 4) return (bits & 0x7fffffffu) > 0x7f800000u;
  return type == ParamDtype::bf16 ? (bits & 0x7fffu) > 0x7f80u : (bits & 0x7fffu) > 0x7c00u;
}

template <typename T>
::testing::AssertionResult same_vector_bits(const char* name, const std::vector<T>& expected,
                                            const std::vector<T>& actual, size_t width,
                                            ParamDtype type, bool any_nan) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << name << ": sizes differ";
  }
  const size_t bytes = expected.size() * sizeof(T);
  const auto* a = reinterpret_cast<const unsigned char*>(expected.data());
  const auto* b = reinterpret_cast<const unsigned char*>(actual.data());
  for (size_t offset = 0; offset < bytes; offset += width) {
    uint32_t want = 0;
    uint32_t got = 0;
    std::memcpy(&want, a + offset, width);
    std::memcpy(&got, b + offset, width);
    if (want == got || (any_nan && is_nan(want, width, type) && is_nan(got, width, type))) {
      continue;
    }
    return ::testing::AssertionFailure() << name << "[" << offset / width
                                         << "]: expected bits 0x" << std::hex << want
                                         << ", got 0x" << got;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult compare(const TestTensor& expected, const TestTensor& actual,
                                   bool any_nan) {
  const size_t width = param_bytes(expected.type);
  const ParamDtype type = expected.type;
  for (auto result :
       {same_vector_bits("param", expected.param, actual.param, width, type, any_nan),
        same_vector_bits("grad", expected.grad, actual.grad, width, type, any_nan),
        same_vector_bits("master", expected.master, actual.master, 4, type, any_nan),
        same_vector_bits("exp_avg", expected.exp_avg, actual.exp_avg, 4, type, any_nan),
        same_vector_bits("exp_avg_sq", expected.exp_avg_sq, actual.exp_avg_sq, 4, type,
                         any_nan)}) {
    if (!result) return result;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

TensorRefs TestTensor::refs() {
  return TensorRefs{param.data(), grad.data(), master.empty() ? nullptr : master.data(),
                    exp_avg.data(), exp_avg_sq.data()};
}

TestTensor random_tensor(ParamDtype type, size_t numel, uint64_t seed) {
  std::mt19937_64 rng(seed);
  TestTensor t{type, numel, std::vector<unsigned char>(numel * param_bytes(type)),
               std::vector<unsigned char>(numel * param_bytes(type)), {}, {}, {}};
  std::vector<float> weights(numel);
  for (float& w : weights) w = awkward_float(rng, -20, 2, true);
  for (size_t i = 0; i < numel; ++i) {
    t.exp_avg.push_back(awkward_float(rng, -30, 0, true));
    t.exp_avg_sq.push_back(awkward_float(rng, -60, 0, false));
  }
  if (type == ParamDtype::f32) {
    std::vector<float> grads(numel);
    for (float& g : grads) g = awkward_float(rng, -40, 12, true);
    std::memcpy(t.param.data(), weights.data(), numel * sizeof(float));
    std::memcpy(t.grad.data(), grads.data(), numel * sizeof(float));
    return t;
  }
  t.master = weights;
  std::vector<uint16_t> params(numel);
  std::vector<uint16_t> grads(numel);
  for (size_t i = 0; i < numel; ++i) {
    params[i] = type == ParamDtype::bf16 ? sdk::float_to_bf16(weights[i]) : sdk::float_to_half(weights[i]);
    grads[i] = finite_half_bits(rng, type);
  }
  std::memcpy(t.param.data(), params.data(), numel * 2);
  std::memcpy(t.grad.data(), grads.data(), numel * 2);
  return t;
}

::testing::AssertionResult same_bits(const TestTensor& expected, const TestTensor& actual) {
  return compare(expected, actual, false);
}

::testing::AssertionResult same_bits_but_nan_payloads(const TestTensor& expected,
                                                      const TestTensor& actual) {
  return compare(expected, actual, true);
}

std::string_view dtype_name(ParamDtype type) {
  switch (type) {
    case ParamDtype::f32: return "f32";
    case ParamDtype::bf16: return "bf16";
    case ParamDtype::f16: return "f16";
  }
  return "unknown";
}

std::vector<StepHyper> test_hypers() {
  return {
      StepHyper{.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 1e-2,
                .step = 1},
      StepHyper{.lr = 0.3, .beta1 = 0.5, .beta2 = 0.6, .eps = 0.0, .weight_decay = 0.7,
                .step = 7, .lr_scale = 0.25, .grad_scale = 1024.0},
      StepHyper{.lr = 2e-2, .beta1 = 0.95, .beta2 = 0.99999, .eps = 1e-3, .weight_decay = 0.0,
                .step = 100000, .grad_scale = 3.0},
  };
}

}  // namespace dopant::adamw_kernels::testing
