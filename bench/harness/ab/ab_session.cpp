// Running the schedule and comparing the samples.
#include "ab_session.hpp"

#include "schedule.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dopant::ab {
namespace {

std::string describe_run(const ScheduledRun& run, const std::string& variant, size_t position, size_t total) {
  return "run " + std::to_string(position + 1) + "/" + std::to_string(total) + " (" + variant + ", " +
         (run.warmup ? "warm-up " : "repetition ") + std::to_string(run.repetition + 1) + ")";
}

void record(AbSamples& samples, const std::string& variant, const RunOutput& output) {
  if (samples.workload.empty()) samples.workload = output.workload;
  for (const MetricValue& metric : output.metrics) {
    if (!std::isfinite(metric.value)) {
      throw std::runtime_error("metric `" + metric.info.name + "` is not a finite number");
    }
    const bool known = std::any_of(samples.metrics.begin(), samples.metrics.end(),
                                   [&](const MetricInfo& info) { return info.name == metric.info.name; });
    if (!known) samples.metrics.push_back(metric.info);
    samples.values[variant][metric.info.name].push_back(metric.value);
  }
}

}  // namespace

AbSamples collect_samples(RunBackend& backend, const std::string& config_file, const std::vector<std::string>& variants,
                          const AbSettings& settings, ProgressLine& progress) {
  AbSamples samples;
  samples.config_file = config_file;
  samples.variants = variants;
  const std::vector<ScheduledRun> schedule = interleaved_schedule(variants.size(), settings.repetitions, settings.warmups);
  for (size_t position = 0; position < schedule.size(); ++position) {
    const ScheduledRun& run = schedule[position];
    const std::string& variant = variants[run.variant];
    const std::string label = describe_run(run, variant, position, schedule.size());
    progress.show("dopant ab: " + label);
    try {
      const RunOutput output = backend.run(variant);
      samples.runs.push_back(RunRecord{variant, run.warmup, run.repetition, output.failure});
      if (!run.warmup) record(samples, variant, output);
    } catch (const std::exception& e) {
      progress.clear();
      throw std::runtime_error(label + " failed: " + e.what());
    }
  }
  progress.clear();
  return samples;
}

std::vector<MetricResult> compare_all(const AbSamples& samples, const CompareSettings& settings) {
  std::vector<MetricResult> results;
  if (samples.variants.empty()) return results;
  static const std::vector<double> none;
  const auto values_of = [&](const std::string& variant, const std::string& metric) -> const std::vector<double>& {
    const auto by_variant = samples.values.find(variant);
    if (by_variant == samples.values.end()) return none;
    const auto by_metric = by_variant->second.find(metric);
    return by_metric == by_variant->second.end() ? none : by_metric->second;
  };
  for (const MetricInfo& info : samples.metrics) {
    MetricResult result{info, {}, {}};
    const std::vector<double>& base = values_of(samples.variants[0], info.name);
    for (size_t v = 1; v < samples.variants.size(); ++v) {
      const std::string& variant = samples.variants[v];
      const std::vector<double>& candidate = values_of(variant, info.name);
      if (!base.empty() && !candidate.empty()) {
        result.comparisons.push_back(compare_samples(variant, base, candidate, info.higher_is_better, settings));
      } else if (!base.empty() || !candidate.empty()) {
        result.not_compared.push_back(OneSided{variant, summarize_side(base), summarize_side(candidate)});
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace dopant::ab
