// Median, MAD and quantiles of one sample.
#include "summary_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dopant::ab {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  if (fraction == 0.0 || sorted[below] == sorted[above]) return sorted[below];
  // NumPy's lerp: from the nearer end, so the result stays within [below, above].
  const double gap = sorted[above] - sorted[below];
  return fraction < 0.5 ? sorted[below] + gap * fraction : sorted[above] - gap * (1 - fraction);
}

double median_in_place(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto middle = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double below = *std::max_element(values.begin(), middle);
  return 0.5 * (below + *middle);
}

double median(std::vector<double> values) { return median_in_place(values); }

double median_absolute_deviation(const std::vector<double>& values) {
  const double center = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double value : values) deviations.push_back(std::fabs(value - center));
  return median(std::move(deviations));
}

}  // namespace dopant::ab
