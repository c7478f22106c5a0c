// Running an A/B session: the schedule, the progress line, the fresh-process and
// in-process backends, and the collection and comparison of the samples.

#include "session.hpp"

#include <dopant/support/json_value.hpp>
#include "repetition.hpp"
#include "workloads.hpp"

#include <signal.h>
#include <unistd.h>

#include <dopant/support/c_api_errors.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace dopant::ab {

// The interleaved ABBA schedule.

std::vector<ScheduledRun> interleaved_schedule(size_t configuration_count, size_t repetitions, size_t warmups) {
  std::vector<ScheduledRun> runs;
  runs.reserve(configuration_count * (repetitions + warmups));
  const size_t rounds = warmups + repetitions;
  for (size_t round = 0; round < rounds; ++round) {
    const bool warmup = round < warmups;
    const size_t repetition = warmup ? round : round - warmups;
    for (size_t i = 0; i < configuration_count; ++i) {
      const size_t variant = round % 2 == 0 ? i : configuration_count - 1 - i;
      runs.push_back(ScheduledRun{variant, warmup, repetition});
    }
  }
  return runs;
}

// Carriage-return progress on a terminal's stderr.

void ProgressLine::show(const std::string& text) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);  // "SEGV", or NULL for an unknown number
  return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

std::string describe_outcome(const ChildOutcome& outcome, double timeout_seconds) {
  if (outcome.timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
    return std::string("timed out after ") + seconds + " s and was killed";
  }
  if (outcome.signal != 0) {
    return "was killed by signal " + std::to_string(outcome.signal) + " (" + signal_name(outcome.signal) + ", " +
           strsignal(outcome.signal) + ")";
  }
  return "exited with status " + std::to_string(outcome.exit_code);
}

// Parsing of `dopant run --json` output.

RunOutput parse_run_result(std::string_view json_text) {
  const JsonValue document = parse_json(json_text);
  RunOutput output;
  output.workload = document.at("workload").string();
  for (const JsonValue& metric : document.at("metrics").array()) {
    MetricValue value;
    value.info.name = metric.at("name").string();
    value.info.unit = metric.at("unit").string();
    value.info.higher_is_better = metric.at("better").string() == "higher";
    const auto& values = metric.at("values").array();
    if (values.size() != 1) {
      throw std::runtime_error("metric `" + value.info.name + "`: expected one value per run, got " +
                               std::to_string(values.size()));
    }
    if (!values[0].is(JsonValue::Type::number)) {
      throw std::runtime_error("metric `" + value.info.name + "`: the value is not a finite number");
    }
    value.value = values[0].number();
    output.metrics.push_back(std::move(value));
  }
  if (document.has("error")) {
    const JsonValue& error = document.at("error");
    output.failure = RunFailure{error.at("code").string(), error.at("message").string()};
  }
  return output;
}

// The fresh-process backend: spawn `dopant run`, read its JSON (a failed run's too, when it
// exited with status 1 and wrote one naming the error), return a crash or a timeout as the
// run's failure, and report any other failure with the child's last lines of stderr.

namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The last `lines` lines of a text, without the final newline.
std::string tail_lines(const std::string& text, int lines) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  size_t start = end;
  for (int seen = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++seen == lines) break;
  }
  return text.substr(start, end - start);
}

}  // namespace

ProcessBackend::ProcessBackend(std::string dopant_executable, std::vector<std::string> plugin_paths,
                               std::string config_file, double timeout_seconds)
    : executable_(std::move(dopant_executable)),
      plugin_paths_(std::move(plugin_paths)),
      config_file_(std::move(config_file)),
      timeout_seconds_(timeout_seconds),
      folder_("dopant-ab") {}

ProcessBackend::~ProcessBackend() = default;

RunOutput ProcessBackend::run(const std::string& variant) {
  const std::string json_path = folder_.path() + "/run.json";
  const std::string stderr_path = folder_.path() + "/stderr.txt";
  std::filesystem::remove(json_path);
  std::vector<std::string> argv = launcher_;
  argv.push_back(executable_);
  for (const std::string& path : plugin_paths_) {
    argv.push_back("--plugin-path");
    argv.push_back(path);
  }
  for (const char* word : {"run", config_file_.c_str(), "--variant", variant.c_str(), "--repetitions", "1", "--json",
                           json_path.c_str()}) {
    argv.emplace_back(word);
  }
  const ChildOutcome outcome = run_child(argv, timeout_seconds_, stderr_path);
  const auto child_failed = [&] {
    const std::string errors = tail_lines(read_text(stderr_path), 5);
    return std::runtime_error("`dopant run` " + describe_outcome(outcome, timeout_seconds_) +
                              (errors.empty() ? "" : ":\n" + errors));
  };
  // A run ended by a signal or killed at the deadline is a result of the configuration:
  // the failure says how it ended, with the child's last lines of stderr.
  if (outcome.timed_out || outcome.signal != 0) {
    const std::string errors = tail_lines(read_text(stderr_path), 5);
    RunOutput output;
    output.failure = RunFailure{outcome.timed_out ? kTimedOutCode : kCrashedCode,
                                describe_outcome(outcome, timeout_seconds_) + (errors.empty() ? "" : ": " + errors),
                                outcome.timed_out ? 0 : outcome.signal};
    return output;
  }
  // Status 1 is how `dopant run` says the workload failed; its result must then name the error.
  const bool exited_with_status_1 = outcome.exit_code == 1;
  if (outcome.exit_code != 0 && !exited_with_status_1) throw child_failed();
  RunOutput output;
  try {
    output = parse_run_result(read_text(json_path));
  } catch (const std::runtime_error& e) {
    if (exited_with_status_1) throw child_failed();
    throw std::runtime_error("reading the output of `dopant run`: " + std::string(e.what()));
  }
  if (exited_with_status_1 && !output.failure) throw child_failed();
  if (!exited_with_status_1 && output.failure) {
    throw std::runtime_error("reading the output of `dopant run`: it names an error but the run exited with status 0");
  }
  return output;
}

// Opening a runtime and loading a run file through the host-side C API.

LoadedConfig::LoadedConfig(const std::string& file, const std::vector<std::string>& plugin_paths) {
  runtime_ = workloads::open_runtime(plugin_paths, DPT_LOG_WARN);
  try {
    throw_if_error(dpt_run_config_load(runtime_, file.c_str(), &config_), "");
  } catch (...) {
    dpt_runtime_destroy(runtime_);
    throw;
  }
}

LoadedConfig::~LoadedConfig() {
  dpt_run_config_destroy(config_);
  dpt_runtime_destroy(runtime_);
}

std::string LoadedConfig::workload() const { return dpt_run_config_workload(config_); }

std::vector<std::string> LoadedConfig::variant_names() const {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < dpt_run_config_variant_count(config_); ++i) {
    names.emplace_back(dpt_run_config_variant_name(config_, i));
  }
  return names;
}

uint32_t LoadedConfig::variant_index(const std::string& name) const {
  const std::vector<std::string> names = variant_names();
  for (uint32_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  throw std::invalid_argument("no configuration `" + name + "` in the run file");
}

// The in-process backend: select the variant's device, clear metrics and memory peaks, run
// the workload once, collect what it reported, and its error when it failed.

InProcessBackend::InProcessBackend(const LoadedConfig& loaded)
    : loaded_(loaded), workload_(workloads::find(loaded.workload().c_str())) {
  if (workload_ == nullptr) throw std::runtime_error("no built-in workload `" + loaded.workload() + "`");
}

RunOutput InProcessBackend::run(const std::string& variant) {
  dpt_runtime* runtime = loaded_.runtime();
  const uint32_t index = loaded_.variant_index(variant);
  dpt_device_options device{};
  device.struct_size = sizeof device;
  dpt_run_config_device(loaded_.config(), index, &device);
  throw_if_error(dpt_runtime_set_device(runtime, &device), "[device]");
  throw_if_error(dpt_runtime_set_comm(runtime, dpt_run_config_comm(loaded_.config())), dpt_run_config_source(loaded_.config()));
  const workloads::Repetition repetition = workloads::run_repetition(runtime, loaded_.config(), index, *workload_);

  RunOutput output;
  output.workload = loaded_.workload();
  if (repetition.failure) output.failure = RunFailure{repetition.failure->code, repetition.failure->message};
  for (const workloads::MeasuredMetric& metric : repetition.metrics) {
    output.metrics.push_back(
        MetricValue{MetricInfo{metric.name, metric.unit, metric.better == DPT_BETTER_HIGHER}, metric.value});
  }
  return output;
}

// Running the schedule and comparing the samples.

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
