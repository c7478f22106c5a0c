// Order statistics of one sample: median, median absolute deviation and linear-interpolated
// quantiles (NumPy's default "linear" method, so reference scripts agree).
#pragma once

#include <vector>

namespace dopant::ab {

// Median; NaN for an empty sample.
double median(std::vector<double> values);

// Median of a scratch buffer, reordering it (no allocation); NaN when empty.
double median_in_place(std::vector<double>& values);

// Median absolute deviation from the median, unscaled (no 1.4826 factor); NaN when empty.
double median_absolute_deviation(const std::vector<double>& values);

// Quantile q in [0, 1] of an ascending sample, interpolating linearly between the order
// statistics at positions floor and ceil of q * (n - 1). NaN when empty.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

}  // namespace dopant::ab
