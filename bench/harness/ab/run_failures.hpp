// The failed runs of one configuration, summed up for the reports: how many of its measured
// runs failed out of how many (warm-ups are not counted there, as they are not among the
// repetitions; their failures are counted apart), the first message of each distinct error
// code, and every run that crashed or timed out, with its repetition.
#pragma once

#include "ab_data.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// A run that ended without reporting a result: crashed (with its signal) or timed out.
struct UnreportedRun {
  bool warmup = false;
  size_t repetition = 0;  // 0-based, within the warm-ups or within the repetitions
  RunFailure failure;
};

struct FailureSummary {
  std::string variant;
  size_t failed = 0;          // failed measured runs
  size_t runs = 0;            // measured runs
  size_t failed_warmups = 0;  // failed warm-up runs, not in `failed` nor `runs`
  std::vector<RunFailure> first_of_each_code;  // reported errors, in the order the codes first occurred
  std::vector<UnreportedRun> unreported;       // crashes and timeouts, in run order
};

FailureSummary summarize_failures(const AbSamples& samples, const std::string& variant);

// The summaries of the configurations that had at least one failed run (warm-ups included),
// in their order.
std::vector<FailureSummary> configurations_with_failures(const AbSamples& samples);

}  // namespace dopant::ab
