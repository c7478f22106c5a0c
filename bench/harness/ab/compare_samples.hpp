// One metric, one variant against the base: each side's median and MAD, the ratio of
// medians with its bootstrap interval, the Mann-Whitney test and the verdict.
#pragma once

#include "bootstrap_ratio.hpp"
#include "mann_whitney.hpp"
#include "verdict.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

struct SideSummary {
  size_t n = 0;
  double median = 0;
  double mad = 0;
};

struct Comparison {
  std::string variant;
  SideSummary base;
  SideSummary candidate;
  RatioInterval ratio;
  MannWhitneyResult test;
  Verdict verdict = Verdict::no_change;
};

struct CompareSettings {
  BootstrapSettings bootstrap;
  VerdictRule rule;
};

// Size, median and MAD of one side; median and MAD are NaN when it is empty.
SideSummary summarize_side(const std::vector<double>& values);

// The verdict is "no change" when a side has fewer than 2 values (its bootstrap interval is
// then degenerate); otherwise as decide_verdict says. Throws std::invalid_argument when a
// sample is empty or holds NaN.
Comparison compare_samples(const std::string& variant, const std::vector<double>& base,
                           const std::vector<double>& candidate, bool higher_is_better,
                           const CompareSettings& settings);

}  // namespace dopant::ab
