// The verdict rule: significance and an interval wholly beyond the noise threshold.
#include "verdict.hpp"

namespace dopant::ab {

Verdict decide_verdict(const RatioInterval& interval, double p_value, bool higher_is_better,
                       const VerdictRule& rule) {
  if (!(p_value < rule.alpha)) return Verdict::no_change;
  const bool went_up = interval.low > 1 + rule.noise_threshold;
  const bool went_down = interval.high < 1 - rule.noise_threshold;
  if (!went_up && !went_down) return Verdict::no_change;
  return went_up == higher_is_better ? Verdict::improved : Verdict::regressed;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::improved: return "improved";
    case Verdict::regressed: return "regressed";
    case Verdict::no_change: break;
  }
  return "no change";
}

}  // namespace dopant::ab
