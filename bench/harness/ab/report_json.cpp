// The JSON report: settings, configurations, the order of runs, each configuration's raw
// values in run order and failed runs (a crash with its signal and repetition), and per
// metric the comparisons against the base and the pairs not compared.
#include "child_process.hpp"
#include "reports.hpp"
#include "run_failures.hpp"

#include <dopant/runtime.h>
#include <dopant/support/json_text.hpp>

namespace dopant::ab {
namespace {

std::string side_json(const SideSummary& side) {
  return "{\"n\": " + std::to_string(side.n) + ", \"median\": " + json_number(side.median) +
         ", \"mad\": " + json_number(side.mad) + "}";
}

std::string comparison_json(const Comparison& c) {
  return "{\"variant\": " + json_string(c.variant) + ", \"base\": " + side_json(c.base) +
         ", \"candidate\": " + side_json(c.candidate) + ", \"ratio\": " + json_number(c.ratio.ratio) +
         ", \"ci\": [" + json_number(c.ratio.low) + ", " + json_number(c.ratio.high) +
         "], \"mann_whitney\": {\"u\": " + json_number(c.test.u) + ", \"p\": " + json_number(c.test.p) +
         ", \"method\": " + json_string(method_name(c.test.method)) + "}, \"verdict\": " +
         json_string(verdict_name(c.verdict)) + "}";
}

std::string one_sided_json(const OneSided& pair) {
  return "{\"variant\": " + json_string(pair.variant) + ", \"base\": " + side_json(pair.base) +
         ", \"candidate\": " + side_json(pair.candidate) + "}";
}

// The code and message of a run that never reported, with its signal when it crashed.
std::string failure_fields(const RunFailure& failure) {
  std::string text = "\"code\": " + json_string(failure.code);
  if (failure.signal != 0) {
    text += ", \"signal\": " + std::to_string(failure.signal) + ", \"signal_name\": " +
            json_string(signal_name(failure.signal));
  }
  return text + ", \"message\": " + json_string(failure.message);
}

std::string failures_json(const FailureSummary& summary) {
  std::string text = "{\"count\": " + std::to_string(summary.failed) + ", \"total\": " + std::to_string(summary.runs) +
                     ", \"failed_warmups\": " + std::to_string(summary.failed_warmups) + ", \"messages\": [";
  for (size_t i = 0; i < summary.first_of_each_code.size(); ++i) {
    const RunFailure& failure = summary.first_of_each_code[i];
    text += std::string(i ? ", " : "") + "{\"code\": " + json_string(failure.code) +
            ", \"message\": " + json_string(failure.message) + "}";
  }
  text += "], \"unreported\": [";
  for (size_t i = 0; i < summary.unreported.size(); ++i) {
    const UnreportedRun& run = summary.unreported[i];
    text += std::string(i ? ", " : "") + "{\"warmup\": " + (run.warmup ? "true" : "false") +
            ", \"repetition\": " + std::to_string(run.repetition) + ", " + failure_fields(run.failure) + "}";
  }
  return text + "]}";
}

std::string settings_json(const AbSettings& s) {
  return "{\"repetitions\": " + std::to_string(s.repetitions) + ", \"warmups\": " + std::to_string(s.warmups) +
         ", \"fresh_processes\": " + (s.fresh_processes ? "true" : "false") +
         ", \"timeout_seconds\": " + json_number(s.timeout_seconds) +
         ", \"seed\": " + std::to_string(s.compare.bootstrap.seed) +
         ", \"resamples\": " + std::to_string(s.compare.bootstrap.resamples) +
         ", \"confidence\": " + json_number(s.compare.bootstrap.confidence) +
         ", \"alpha\": " + json_number(s.compare.rule.alpha) +
         ", \"noise_threshold\": " + json_number(s.compare.rule.noise_threshold) + "}";
}

}  // namespace

std::string render_json(const AbResult& result) {
  const AbSamples& samples = result.samples;
  std::string text = "{\n  \"dopant_version\": " + json_string(dpt_version()) +
                     ",\n  \"config\": " + json_string(samples.config_file) +
                     ",\n  \"workload\": " + json_string(samples.workload) +
                     ",\n  \"settings\": " + settings_json(result.settings) + ",\n  \"variants\": [";
  for (size_t i = 0; i < samples.variants.size(); ++i) text += (i ? ", " : "") + json_string(samples.variants[i]);
  text += "],\n  \"order\": [";
  for (size_t i = 0; i < samples.runs.size(); ++i) {
    const RunRecord& run = samples.runs[i];
    text += std::string(i ? "," : "") + "\n    {\"variant\": " + json_string(run.variant) +
            ", \"warmup\": " + (run.warmup ? "true" : "false") +
            ", \"repetition\": " + std::to_string(run.repetition) +
            ", \"failed\": " + (run.failure ? "true" : "false") +
            (run.failure && run.failure->never_reported() ? ", " + failure_fields(*run.failure) : "") + "}";
  }
  text += "\n  ],\n  \"samples\": {";
  bool first_variant = true;
  for (const std::string& variant : samples.variants) {
    text += std::string(first_variant ? "" : ",") + "\n    " + json_string(variant) + ": {";
    first_variant = false;
    const auto found = samples.values.find(variant);
    bool first_metric = true;
    for (const MetricInfo& info : samples.metrics) {
      if (found == samples.values.end() || !found->second.count(info.name)) continue;
      text += std::string(first_metric ? "" : ", ") + json_string(info.name) + ": [";
      first_metric = false;
      const auto& values = found->second.at(info.name);
      for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + json_number(values[i]);
      text += "]";
    }
    text += "}";
  }
  text += "\n  },\n  \"failures\": {";
  for (size_t i = 0; i < samples.variants.size(); ++i) {
    text += std::string(i ? "," : "") + "\n    " + json_string(samples.variants[i]) + ": " +
            failures_json(summarize_failures(samples, samples.variants[i]));
  }
  text += "\n  },\n  \"metrics\": [";
  for (size_t m = 0; m < result.metrics.size(); ++m) {
    const MetricResult& metric = result.metrics[m];
    text += std::string(m ? "," : "") + "\n    {\"name\": " + json_string(metric.info.name) +
            ", \"unit\": " + json_string(metric.info.unit) +
            ", \"better\": " + json_string(metric.info.higher_is_better ? "higher" : "lower") + ", \"comparisons\": [";
    for (size_t c = 0; c < metric.comparisons.size(); ++c) {
      text += std::string(c ? "," : "") + "\n      " + comparison_json(metric.comparisons[c]);
    }
    text += "], \"not_compared\": [";
    for (size_t p = 0; p < metric.not_compared.size(); ++p) {
      text += std::string(p ? "," : "") + "\n      " + one_sided_json(metric.not_compared[p]);
    }
    text += "]}";
  }
  return text + "\n  ]\n}\n";
}

}  // namespace dopant::ab
