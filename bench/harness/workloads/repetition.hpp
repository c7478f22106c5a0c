// One repetition of a workload, as `dopant run` and the in-process A/B backend both need it:
// clear metrics and memory peaks, run, and collect what it reported — also when it failed.
#pragma once

#include "workloads.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dopant::workloads {

struct MeasuredMetric {
  std::string name;
  double value = 0;
  std::string unit;
  dpt_better better = DPT_BETTER_LOWER;
};

struct RepetitionFailure {
  std::string code;     // dpt_code_name: "out of memory"
  std::string message;  // "workload `NAME`: ..."
};

struct Repetition {
  std::vector<MeasuredMetric> metrics;  // in the order reported
  std::optional<RepetitionFailure> failure;
};

// The device must already be selected.
Repetition run_repetition(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant,
                          const Workload& workload);

}  // namespace dopant::workloads
