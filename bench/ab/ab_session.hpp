// Carries out an A/B session: runs the interleaved schedule through a backend, gathers
// each configuration's values in run order, then compares every variant with the base on
// every metric.
#pragma once

#include "ab_data.hpp"
#include "progress_line.hpp"
#include "run_backend.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// Runs every configuration in `variants` (the base first) per settings' repetitions and
// warm-ups. Throws std::runtime_error naming the run (position, configuration, repetition)
// when one fails or reports a non-finite value.
AbSamples collect_samples(RunBackend& backend, const std::string& config_file, const std::vector<std::string>& variants,
                          const AbSettings& settings, ProgressLine& progress);

// The comparisons of every variant against the base, per metric, in the metrics' order.
// A metric missing on one side of a pair gets no comparison for that pair.
std::vector<MetricResult> compare_all(const AbSamples& samples, const CompareSettings& settings);

}  // namespace dopant::ab
