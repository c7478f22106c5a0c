// Counting a configuration's failed runs, keeping one message per reported error code and
// every crash and timeout with its repetition.
#include "run_failures.hpp"

#include <algorithm>

namespace dopant::ab {

FailureSummary summarize_failures(const AbSamples& samples, const std::string& variant) {
  FailureSummary summary;
  summary.variant = variant;
  for (const RunRecord& run : samples.runs) {
    if (run.variant != variant) continue;
    if (!run.warmup) ++summary.runs;
    if (!run.failure) continue;
    ++(run.warmup ? summary.failed_warmups : summary.failed);
    if (run.failure->never_reported()) {
      summary.unreported.push_back(UnreportedRun{run.warmup, run.repetition, *run.failure});
      continue;
    }
    auto& kept = summary.first_of_each_code;
    const bool seen = std::any_of(kept.begin(), kept.end(),
                                  [&](const RunFailure& failure) { return failure.code == run.failure->code; });
    if (!seen) kept.push_back(*run.failure);
  }
  return summary;
}

std::vector<FailureSummary> configurations_with_failures(const AbSamples& samples) {
  std::vector<FailureSummary> summaries;
  for (const std::string& variant : samples.variants) {
    FailureSummary summary = summarize_failures(samples, variant);
    if (summary.failed + summary.failed_warmups > 0) summaries.push_back(std::move(summary));
  }
  return summaries;
}

}  // namespace dopant::ab
