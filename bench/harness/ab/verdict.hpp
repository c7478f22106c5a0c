// The verdict of one comparison: "no change" unless the Mann-Whitney p-value is below alpha
// AND the whole ratio interval lies beyond the noise threshold (above 1 + t or below 1 - t);
// then "improved" or "regressed" by the metric's better direction.
#pragma once

#include "bootstrap_ratio.hpp"

namespace dopant::ab {

enum class Verdict { no_change, improved, regressed };

struct VerdictRule {
  double alpha = 0.05;
  double noise_threshold = 0.02;  // relative: 0.02 is 2%
};

Verdict decide_verdict(const RatioInterval& interval, double p_value, bool higher_is_better,
                       const VerdictRule& rule);

// "no change", "improved", "regressed".
const char* verdict_name(Verdict verdict);

}  // namespace dopant::ab
