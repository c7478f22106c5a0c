// What the expert-balance tests share: the message of a refused call, and per-expert loads
// with Zipf-skewed popularity.
#pragma once

#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace dopant::balance_tests {

// The message of the sdk::Error (DPT_INVALID_ARGUMENT) that `call` throws; "" and a test
// failure if it throws none.
template <typename Call>
std::string refusal(Call&& call) {
  try {
    call();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_INVALID_ARGUMENT) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the call was not refused";
  return "";
}

// `tokens` routed over `experts` with the popularity of the i-th most popular expert
// proportional to 1 / i^s (Zipf), the popularity ranks shuffled over expert ids by `seed`:
// load[e] = round(tokens * p(e)).
inline std::vector<int64_t> zipf_load(uint32_t experts, double s, int64_t tokens, uint32_t seed) {
  std::vector<uint32_t> order(experts);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  double norm = 0.0;
  for (uint32_t i = 1; i <= experts; ++i) norm += 1.0 / std::pow(i, s);
  std::vector<int64_t> load(experts);
  for (uint32_t i = 0; i < experts; ++i) {
    load[order[i]] = std::llround(static_cast<double>(tokens) / std::pow(i + 1, s) / norm);
  }
  return load;
}

}  // namespace dopant::balance_tests
