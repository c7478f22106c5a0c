// What an A/B session produces: the metrics seen, the order of runs (with the failure each
// failed run reported), each configuration's measured values in run order, the settings
// used and the comparisons computed from them.
#pragma once

#include "statistics.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dopant::ab {

struct MetricInfo {
  std::string name;
  std::string unit;
  bool higher_is_better = false;
};

// One metric value reported by one run.
struct MetricValue {
  MetricInfo info;
  double value = 0;
};

// The codes of a run that ended without reporting a result: its process was ended by a
// signal, or killed at the --timeout deadline.
inline constexpr const char* kCrashedCode = "crashed";
inline constexpr const char* kTimedOutCode = "timed out";

// How a run failed: the error it reported, or how its process ended when it never reported.
struct RunFailure {
  std::string code;     // the text of dpt_code_name ("out of memory", ...), kCrashedCode or kTimedOutCode
  std::string message;
  int signal = 0;       // kCrashedCode: the signal that ended the process, else 0

  bool never_reported() const { return code == kCrashedCode || code == kTimedOutCode; }
};

// What one run of one configuration reported. A failed run still carries the metrics it
// reported before it failed.
struct RunOutput {
  std::string workload;
  std::vector<MetricValue> metrics;
  std::optional<RunFailure> failure;
};

struct RunRecord {
  std::string variant;
  bool warmup = false;
  size_t repetition = 0;
  std::optional<RunFailure> failure;  // set when the run failed
};

struct AbSamples {
  std::string config_file;
  std::string workload;
  std::vector<std::string> variants;  // configurations, the base ("base") first
  std::vector<MetricInfo> metrics;    // in the order first reported
  std::vector<RunRecord> runs;        // every run in execution order, warm-ups included
  // variant -> metric -> measured values in run order (warm-ups excluded; failed runs'
  // values included)
  std::map<std::string, std::map<std::string, std::vector<double>>> values;
};

struct AbSettings {
  size_t repetitions = 7;
  size_t warmups = 1;
  bool fresh_processes = true;
  double timeout_seconds = 0;  // 0: none
  CompareSettings compare;
};

// A variant and a metric that only one side (the base or the variant) has values of: each
// side's summary, n = 0 on the side without values.
struct OneSided {
  std::string variant;
  SideSummary base;
  SideSummary candidate;
};

struct MetricResult {
  MetricInfo info;
  std::vector<Comparison> comparisons;  // one per variant that has values on both sides
  std::vector<OneSided> not_compared;   // one per variant where only one side has values
};

struct AbResult {
  AbSamples samples;
  AbSettings settings;
  std::vector<MetricResult> metrics;
};

}  // namespace dopant::ab
