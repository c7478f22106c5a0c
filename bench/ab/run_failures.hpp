// The failed runs of one configuration, summed up for the reports: how many of its runs
// failed out of how many (warm-ups included, since a failed warm-up is as telling as any
// other run), and the first message of each distinct error code.
#pragma once

#include "ab_data.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

struct FailureSummary {
  std::string variant;
  size_t failed = 0;
  size_t runs = 0;
  std::vector<RunFailure> first_of_each_code;  // in the order the codes first occurred
};

FailureSummary summarize_failures(const AbSamples& samples, const std::string& variant);

// The summaries of the configurations that had at least one failed run, in their order.
std::vector<FailureSummary> configurations_with_failures(const AbSamples& samples);

}  // namespace dopant::ab
