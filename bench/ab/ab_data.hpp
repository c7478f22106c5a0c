// What an A/B session produces: the metrics seen, the order of runs, each configuration's
// measured values in run order, the settings used and the comparisons computed from them.
#pragma once

#include "compare_samples.hpp"

#include <map>
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

// What one run of one configuration reported.
struct RunOutput {
  std::string workload;
  std::vector<MetricValue> metrics;
};

struct RunRecord {
  std::string variant;
  bool warmup = false;
  size_t repetition = 0;
};

struct AbSamples {
  std::string config_file;
  std::string workload;
  std::vector<std::string> variants;  // configurations, the base ("base") first
  std::vector<MetricInfo> metrics;    // in the order first reported
  std::vector<RunRecord> runs;        // every run in execution order, warm-ups included
  // variant -> metric -> measured values in run order (warm-ups excluded)
  std::map<std::string, std::map<std::string, std::vector<double>>> values;
};

struct AbSettings {
  size_t repetitions = 7;
  size_t warmups = 1;
  bool fresh_processes = true;
  double timeout_seconds = 0;  // 0: none
  CompareSettings compare;
};

struct MetricResult {
  MetricInfo info;
  std::vector<Comparison> comparisons;  // one per variant that has values on both sides
};

struct AbResult {
  AbSamples samples;
  AbSettings settings;
  std::vector<MetricResult> metrics;
};

}  // namespace dopant::ab
