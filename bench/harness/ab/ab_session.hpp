// Carries out an A/B session: runs the interleaved schedule through a backend, gathers
// each configuration's values and failed runs in run order, then compares every variant
// with the base on every metric.
#pragma once

#include "ab_data.hpp"
#include "progress_line.hpp"
#include "run_backend.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// Runs every configuration in `variants` (the base first) per settings' repetitions and
// warm-ups. A run that fails with a reported error is recorded with its failure, and the
// values it reported before failing count as samples like any other run's (so that, say,
// the peak memory of a run that ran out of memory is compared); the session goes on.
// Throws std::runtime_error naming the run (position, configuration, repetition) when the
// backend cannot carry a run out or a run reports a non-finite value.
AbSamples collect_samples(RunBackend& backend, const std::string& config_file, const std::vector<std::string>& variants,
                          const AbSettings& settings, ProgressLine& progress);

// The comparisons of every variant against the base, per metric, in the metrics' order.
// A pair is compared when both sides have at least one value; a pair where only one side
// has values is listed in `not_compared`; a pair with no values at all is left out.
std::vector<MetricResult> compare_all(const AbSamples& samples, const CompareSettings& settings);

}  // namespace dopant::ab
