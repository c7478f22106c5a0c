// The seeded percentile bootstrap of the ratio of medians.
#include "bootstrap_ratio.hpp"

#include "summary_stats.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dopant::ab {

uint64_t SplitMix64::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t SplitMix64::index(size_t n) {
  __extension__ typedef unsigned __int128 Wide;
  return static_cast<size_t>((static_cast<Wide>(next()) * n) >> 64);
}

double median_ratio(double base_median, double variant_median) {
  if (base_median == 0 && variant_median == 0) return 1.0;
  if (base_median == 0) {
    return variant_median > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return variant_median / base_median;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& variant,
                                     const BootstrapSettings& settings) {
  if (base.empty() || variant.empty()) throw std::invalid_argument("bootstrap: a sample is empty");
  if (settings.resamples == 0) throw std::invalid_argument("bootstrap: no resamples");
  SplitMix64 random(settings.seed);
  std::vector<double> ratios;
  ratios.reserve(settings.resamples);
  std::vector<double> base_draw(base.size());
  std::vector<double> variant_draw(variant.size());
  for (size_t r = 0; r < settings.resamples; ++r) {
    for (double& value : base_draw) value = base[random.index(base.size())];
    for (double& value : variant_draw) value = variant[random.index(variant.size())];
    ratios.push_back(median_ratio(median_in_place(base_draw), median_in_place(variant_draw)));
  }
  std::sort(ratios.begin(), ratios.end());
  RatioInterval interval;
  interval.ratio = median_ratio(median(base), median(variant));
  interval.low = quantile_of_sorted(ratios, (1 - settings.confidence) / 2);
  interval.high = quantile_of_sorted(ratios, (1 + settings.confidence) / 2);
  return interval;
}

}  // namespace dopant::ab
