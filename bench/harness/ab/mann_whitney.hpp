// The two-sided Mann-Whitney U test, computed the way scipy.stats.mannwhitneyu(x, y,
// alternative="two-sided", method="auto") does in SciPy 1.10: U is x's statistic
// (R_x - n_x (n_x + 1) / 2 with average ranks for ties); the p-value is exact when either
// sample has at most 8 values and there are no ties, otherwise the normal approximation
// with tie correction and continuity correction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dopant::ab {

enum class MannWhitneyMethod { exact, asymptotic };

struct MannWhitneyResult {
  double u = 0;      // statistic of the first sample
  double p = 1;      // two-sided p-value, in [0, 1]
  MannWhitneyMethod method = MannWhitneyMethod::exact;
};

// Throws std::invalid_argument when a sample is empty or holds a NaN.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// Ranks 1..n of `values` in their order, ties sharing the average of their ranks.
std::vector<double> average_ranks(const std::vector<double>& values);

// P(U >= u) for samples of sizes m and n without ties (the exact null distribution).
double exact_u_survival(uint64_t u, size_t m, size_t n);

const char* method_name(MannWhitneyMethod method);

}  // namespace dopant::ab
