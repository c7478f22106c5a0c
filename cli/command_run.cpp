// `dopant run FILE [--variant NAME] [--repetitions N] [--json OUT]`: runs one configuration
// of a run file for its [run] repetitions and prints each metric's median and samples. A
// failing repetition ends the run: what was measured so far is still printed and written,
// with the error, and the exit status is 1. Under `mpirun -np N` every rank runs and rank 0
// alone prints and writes.
#include "commands.hpp"
#include "mpi_launch.hpp"
#include "repetition.hpp"

#include <dopant/support/json_text.hpp>
#include <dopant/support/output_files.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::cli {
namespace {

struct MetricSeries {
  std::string unit;
  dpt_better better = DPT_BETTER_LOWER;
  std::vector<double> values;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

uint32_t find_variant(const dpt_run_config* config, const std::string& name) {
  std::string known;
  for (uint32_t i = 0; i < dpt_run_config_variant_count(config); ++i) {
    const std::string candidate = dpt_run_config_variant_name(config, i);
    if (candidate == name) return i;
    known += (i ? ", " : "") + candidate;
  }
  throw std::invalid_argument("--variant: no variant `" + name + "` (have: " + known + ")");
}

using workloads::RepetitionFailure;

// Runs one repetition and appends its metrics, in the order first reported — also those a
// failing run reported before it failed. Returns the failure, if any.
std::optional<RepetitionFailure> run_once(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant,
                                          const workloads::Workload& workload, std::vector<std::string>& order,
                                          std::map<std::string, MetricSeries>& series) {
  workloads::Repetition repetition = workloads::run_repetition(runtime, config, variant, workload);
  for (const workloads::MeasuredMetric& metric : repetition.metrics) {
    auto [slot, inserted] = series.try_emplace(metric.name);
    if (inserted) order.push_back(metric.name);
    slot->second.unit = metric.unit;
    slot->second.better = metric.better;
    slot->second.values.push_back(metric.value);
  }
  return repetition.failure;
}

// The --json report of the run: the metrics in the order first reported, their values, and
// the failure of the last repetition when it failed.
std::string json_report(const std::string& file, const std::string& workload, const std::string& variant,
                        const std::vector<std::string>& order, const std::map<std::string, MetricSeries>& series,
                        const std::optional<RepetitionFailure>& failure) {
  std::ostringstream out;
  out << "{\n  \"dopant_version\": " << json_string(dpt_version()) << ",\n  \"config\": " << json_string(file)
      << ",\n  \"workload\": " << json_string(workload) << ",\n  \"variant\": " << json_string(variant)
      << ",\n  \"metrics\": [";
  for (size_t i = 0; i < order.size(); ++i) {
    const MetricSeries& s = series.at(order[i]);
    out << (i ? "," : "") << "\n    {\"name\": " << json_string(order[i]) << ", \"unit\": " << json_string(s.unit)
        << ", \"better\": " << json_string(s.better == DPT_BETTER_HIGHER ? "higher" : "lower")
        << ", \"median\": " << json_number(median(s.values)) << ", \"values\": [";
    for (size_t j = 0; j < s.values.size(); ++j) out << (j ? ", " : "") << json_number(s.values[j]);
    out << "]}";
  }
  out << "\n  ]";
  if (failure) {
    out << ",\n  \"error\": {\"code\": " << json_string(failure->code) << ", \"message\": " << json_string(failure->message)
        << "}";
  }
  out << "\n}\n";
  return out.str();
}

}  // namespace

int command_run(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  const auto json_path = take_flag_value(words, "--json");
  const auto variant_name = take_flag_value(words, "--variant");
  const auto repetitions_text = take_flag_value(words, "--repetitions");
  if (words.size() != 1) {
    throw std::invalid_argument("usage: dopant run FILE [--variant NAME] [--repetitions N] [--json OUT]");
  }
  const uint32_t repetitions_override = repetitions_text ? parse_count("--repetitions", *repetitions_text, 1, 1000000, " (1 to 1000000)") : 0;
  const std::string file = words[0];
  if (json_path) check_outputs({{"--json", *json_path, ""}}, {file});  // before any repetition

  Runtime runtime(options);
  dpt_run_config* config = nullptr;
  throw_if_error(dpt_run_config_load(runtime.get(), file.c_str(), &config));
  std::unique_ptr<dpt_run_config, void (*)(dpt_run_config*)> owned(config, dpt_run_config_destroy);

  const uint32_t variant = variant_name ? find_variant(config, *variant_name) : 0;
  const workloads::Workload* workload = workloads::find(dpt_run_config_workload(config));
  if (workload == nullptr) throw std::runtime_error(std::string("no workload `") + dpt_run_config_workload(config) + "`");

  dpt_device_options device{};
  device.struct_size = sizeof device;
  dpt_run_config_device(config, variant, &device);
  throw_if_error(dpt_runtime_set_device(runtime.get(), &device), file + ": [device]");
  throw_if_error(dpt_runtime_set_comm(runtime.get(), dpt_run_config_comm(config)), file);

  const uint32_t repetitions = repetitions_override != 0 ? repetitions_override : dpt_run_config_repetitions(config);
  const std::string name = dpt_run_config_variant_name(config, variant);
  std::vector<std::string> order;
  std::map<std::string, MetricSeries> series;
  std::optional<RepetitionFailure> failure;
  uint32_t ran = 0;
  while (ran < repetitions && !failure) {
    failure = run_once(runtime.get(), config, variant, *workload, order, series);
    ++ran;
  }

  // Under mpirun every rank ran the same repetitions; rank 0 alone reports.
  if (workloads::mpirun_rank() != 0) {
    if (failure) throw std::runtime_error(failure->message + " [" + failure->code + "]");
    return 0;
  }
  std::printf("%s: workload %s, variant %s, %u of %u repetition(s)%s, device %s\n", file.c_str(),
              workload->decl->name, name.c_str(), ran, repetitions, failure ? " (the last failed)" : "", device.kind);
  std::printf("  %-24s %14s %-6s %s\n", "METRIC", "MEDIAN", "UNIT", "SAMPLES");
  for (const std::string& metric : order) {
    const MetricSeries& s = series.at(metric);
    std::string samples;
    for (double value : s.values) samples += (samples.empty() ? "" : " ") + json_number(value);
    std::printf("  %-24s %14.6g %-6s %s\n", metric.c_str(), median(s.values), s.unit.c_str(), samples.c_str());
  }
  if (json_path) {
    write_outputs({{"--json", *json_path, json_report(file, workload->decl->name, name, order, series, failure)}}, {file});
  }
  if (failure) throw std::runtime_error(failure->message + " [" + failure->code + "]");
  return 0;
}

}  // namespace dopant::cli
