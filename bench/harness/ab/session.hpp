// An A/B session from schedule to samples: the interleaved order of runs, the progress
// line, the two ways of carrying out one run (a fresh `dopant run` process, or in this
// process on a loaded run file), reading a run's JSON result, and collect_samples /
// compare_all, which run the schedule and compare every variant with the base.
#pragma once

#include "ab_data.hpp"
#include "workloads.hpp"

#include <dopant/runtime.h>
#include <dopant/support/child_processes.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::ab {

// The order of runs: rounds of every configuration, alternating direction from round to
// round (A B, B A, A B, ...: the ABBA pattern; with more variants A B C, C B A, ...), so
// slow drifts of the machine hit every configuration alike. Warm-up rounds come first and
// follow the same pattern; their results are not counted.

struct ScheduledRun {
  size_t variant = 0;     // index into the configurations, 0 is the base
  bool warmup = false;
  size_t repetition = 0;  // 0-based, counted separately for warm-ups and measured runs
};

std::vector<ScheduledRun> interleaved_schedule(size_t configuration_count, size_t repetitions, size_t warmups);

// One self-overwriting progress line on stderr while runs go on, shown only when stderr
// is a terminal.

class ProgressLine {
 public:
  // `enabled` false prints nothing; use stderr_is_terminal() for the default.
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text);
  // Erases the line, if shown.
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
};

bool stderr_is_terminal();

// How one run of one configuration is carried out: in a fresh process or in this one.

class RunBackend {
 public:
  virtual ~RunBackend() = default;
  // Runs configuration `variant` ("base" or a [variants.NAME]) once and returns its metrics.
  // A workload that fails with an error is a result: its code and message in `failure`,
  // with the metrics reported before it failed. Throws std::runtime_error with the reason
  // when the run cannot be carried out or its result cannot be read.
  virtual RunOutput run(const std::string& variant) = 0;
};

// Children run through dopant::run_child (dopant/support/child_processes.hpp): their own
// process group, a deadline, and cleanup on interrupts.

// "SIGSEGV" for 11; "signal N" for a number without a name.
std::string signal_name(int signal);

// "exited with status 3", "was killed by signal 11 (SIGSEGV, Segmentation fault)",
// "timed out after 5 s and was killed".
std::string describe_outcome(const ChildOutcome& outcome, double timeout_seconds);

// Reads the file `dopant run FILE --variant NAME --json OUT` writes into a RunOutput: the
// workload, per metric its unit, direction and the single value of the run, and the
// run's failure when the file has an "error": {"code": ..., "message": ...} member.

// Throws std::runtime_error when the text is not such a file, a metric holds other than
// exactly one value, or a value is not a finite number.
RunOutput parse_run_result(std::string_view json_text);

// Runs each repetition in a fresh process: `DOPANT [--plugin-path DIR]... run FILE
// --variant NAME --repetitions 1 --json TMP`, then reads TMP. The temporary folder lives
// as long as the backend. A child that exits with status 1 after writing TMP with an
// "error" member is a failed run, returned with its failure and the metrics it reported.
// A child ended by a signal (kCrashedCode, with the signal) or killed at the timeout
// (kTimedOutCode) is a failed run too, with no metrics. Any other non-zero status or
// unreadable output throws: the harness cannot tell what the run did.

class ProcessBackend : public RunBackend {
 public:
  // Throws std::runtime_error when no temporary folder can be made.
  ProcessBackend(std::string dopant_executable, std::vector<std::string> plugin_paths, std::string config_file,
                 double timeout_seconds);
  ~ProcessBackend() override;
  ProcessBackend(const ProcessBackend&) = delete;
  ProcessBackend& operator=(const ProcessBackend&) = delete;

  RunOutput run(const std::string& variant) override;

  // Words put before `dopant run` (e.g. `mpirun -np 2`), so every run starts under them.
  void set_launcher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }

 private:
  std::vector<std::string> launcher_;
  std::string executable_;
  std::vector<std::string> plugin_paths_;
  std::string config_file_;
  double timeout_seconds_;
  TemporaryFolder folder_;
};

// A runtime with the plugins and built-in workloads loaded, and a run file validated
// against them. The harness reads the configurations' names from it before any run; the
// in-process backend also runs from it.

class LoadedConfig {
 public:
  // Throws std::runtime_error with the runtime's or the validator's message.
  LoadedConfig(const std::string& file, const std::vector<std::string>& plugin_paths);
  ~LoadedConfig();
  LoadedConfig(const LoadedConfig&) = delete;
  LoadedConfig& operator=(const LoadedConfig&) = delete;

  dpt_runtime* runtime() const { return runtime_; }
  const dpt_run_config* config() const { return config_; }
  std::string workload() const;
  // "base" first, then each [variants.NAME] in the file's order.
  std::vector<std::string> variant_names() const;
  // Index of a configuration by name; throws std::invalid_argument when unknown.
  uint32_t variant_index(const std::string& name) const;

 private:
  dpt_runtime* runtime_ = nullptr;
  dpt_run_config* config_ = nullptr;
};

// Runs each repetition in this process (`--in-process`): the workload of the run file,
// found with workloads::find, through the host-side C API on a shared runtime.

class InProcessBackend : public RunBackend {
 public:
  // `loaded` must outlive the backend. Throws std::runtime_error when the run file names a
  // workload that is not built in.
  explicit InProcessBackend(const LoadedConfig& loaded);
  RunOutput run(const std::string& variant) override;

 private:
  const LoadedConfig& loaded_;
  const workloads::Workload* workload_;
};

// Carries out an A/B session: runs the interleaved schedule through a backend, gathers
// each configuration's values and failed runs in run order, then compares every variant
// with the base on every metric.

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
