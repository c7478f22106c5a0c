// Ratio of medians (variant / base) with a seeded percentile-bootstrap confidence interval.
//
// The resampling is reproducible from the seed alone, so reference scripts can replay it:
// a splitmix64 stream; each index into a sample of size n is (x * n) >> 64 for the next
// 64-bit output x; each resample draws the base's indices first, then the variant's. The
// interval's ends are the (1 - c)/2 and (1 + c)/2 quantiles of the sorted resampled ratios,
// interpolated linearly (NumPy's default percentile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dopant::ab {

struct BootstrapSettings {
  uint64_t seed = 1;
  size_t resamples = 10000;
  double confidence = 0.95;
};

struct RatioInterval {
  double ratio = 1;  // median(variant) / median(base)
  double low = 1;
  double high = 1;
};

// The splitmix64 generator behind the resampling.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform index in [0, n).
  size_t index(size_t n);

 private:
  uint64_t state_;
};

// Ratio of two medians; 1 when both are zero, +-infinity when only the base is.
double median_ratio(double base_median, double variant_median);

// Throws std::invalid_argument when a sample is empty or resamples is 0.
RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& variant,
                                     const BootstrapSettings& settings);

}  // namespace dopant::ab
