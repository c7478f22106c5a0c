// Mann-Whitney U: ranks, the exact null distribution as the coefficients of a Gaussian
// binomial coefficient, and the tie-corrected normal approximation.
#include "mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dopant::ab {
namespace {

// Counts of the exact distribution grow like binomial(m + n, min(m, n)); 128-bit unsigned
// arithmetic is exact modulo 2^128, so intermediate negatives wrap and the final
// (non-negative, smaller) counts come out right.
__extension__ typedef unsigned __int128 Count;

// Number of arrangements giving each U = 0 .. m*n: the coefficients of the Gaussian
// binomial [m+n choose k]_q = prod_{i=1..k} (1 - q^(m+n-k+i)) / (1 - q^i), k = min(m, n).
std::vector<Count> u_counts(size_t m, size_t n) {
  const size_t k = std::min(m, n);
  const size_t rest = m + n - k;
  std::vector<Count> poly(m * n + 1, 0);
  poly[0] = 1;
  for (size_t i = 1; i <= k; ++i) {
    const size_t grow = rest + i;  // multiply by (1 - q^grow)
    for (size_t d = poly.size() - 1; d >= grow; --d) poly[d] -= poly[d - grow];
    for (size_t d = i; d < poly.size(); ++d) poly[d] += poly[d - i];  // divide by (1 - q^i)
  }
  return poly;
}

double normal_survival(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Sum over tie groups of t^3 - t.
double tie_term(std::vector<double> ranks) {
  std::sort(ranks.begin(), ranks.end());
  double term = 0;
  for (size_t start = 0; start < ranks.size();) {
    size_t end = start;
    while (end < ranks.size() && ranks[end] == ranks[start]) ++end;
    const auto t = static_cast<double>(end - start);
    term += t * t * t - t;
    start = end;
  }
  return term;
}

bool has_ties(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

}  // namespace

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start;
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    const double shared = 0.5 * static_cast<double>(start + 1 + end);  // mean of ranks start+1..end
    for (size_t i = start; i < end; ++i) ranks[order[i]] = shared;
    start = end;
  }
  return ranks;
}

double exact_u_survival(uint64_t u, size_t m, size_t n) {
  if (u == 0) return 1.0;
  if (u > m * n) return 0.0;
  const std::vector<Count> counts = u_counts(m, n);
  Count total = 0;
  Count tail = 0;
  for (size_t d = 0; d < counts.size(); ++d) {
    total += counts[d];
    if (d >= u) tail += counts[d];
  }
  return static_cast<double>(static_cast<long double>(tail) / static_cast<long double>(total));
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("Mann-Whitney U: a sample is empty");
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  if (std::any_of(pooled.begin(), pooled.end(), [](double v) { return std::isnan(v); })) {
    throw std::invalid_argument("Mann-Whitney U: a sample holds NaN");
  }
  const std::vector<double> ranks = average_ranks(pooled);
  const auto n1 = static_cast<double>(x.size());
  const auto n2 = static_cast<double>(y.size());
  const double rank_sum = std::accumulate(ranks.begin(), ranks.begin() + static_cast<long>(x.size()), 0.0);

  MannWhitneyResult result;
  result.u = rank_sum - n1 * (n1 + 1) / 2;
  const double u_larger = std::max(result.u, n1 * n2 - result.u);
  const bool both_large = x.size() > 8 && y.size() > 8;
  if (!both_large && !has_ties(pooled)) {
    result.method = MannWhitneyMethod::exact;
    result.p = 2 * exact_u_survival(static_cast<uint64_t>(std::llround(u_larger)), x.size(), y.size());
  } else {
    result.method = MannWhitneyMethod::asymptotic;
    const double n = n1 + n2;
    const double spread = std::sqrt(n1 * n2 / 12 * ((n + 1) - tie_term(ranks) / (n * (n - 1))));
    const double shifted = u_larger - n1 * n2 / 2 - 0.5;  // continuity correction
    result.p = spread > 0 ? 2 * normal_survival(shifted / spread) : 1.0;
  }
  result.p = std::clamp(result.p, 0.0, 1.0);
  return result;
}

const char* method_name(MannWhitneyMethod method) {
  return method == MannWhitneyMethod::exact ? "exact" : "asymptotic";
}

}  // namespace dopant::ab
