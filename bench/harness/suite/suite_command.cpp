// The built-in suite (see suite_command.hpp): each entry whose plugins are loaded runs as an
// A/B in fresh processes through the harness's session, exactly like `dopant ab`; an entry
// with ranks runs each of them under `mpirun -np N`.
#include "suite_command.hpp"

#include "reports.hpp"
#include "session.hpp"
#include "suite_entries.hpp"
#include "temporary_run_file.hpp"
#include "workloads.hpp"

#include <dopant/runtime.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace dopant::suite {
namespace {

struct SuiteSettings {
  double scale = 1.0;
  size_t repetitions = 5;
  double timeout_seconds = 600;
  std::string only;  // one kind, or "" for every kind
};

double parse_number(const std::string& flag, const std::string& text, double low, double high) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value >= low && value <= high)) {
    throw std::invalid_argument(flag + ": `" + text + "` is not a number in [" + ab::short_number(low) + ", " +
                                ab::short_number(high) + "]");
  }
  return value;
}

SuiteSettings parse_settings(const std::vector<std::string>& args) {
  SuiteSettings settings;
  if (const char* scale = std::getenv("DOPANT_SUITE_SCALE")) {
    settings.scale = parse_number("DOPANT_SUITE_SCALE", scale, 1e-6, 100);
  }
  for (size_t i = 0; i < args.size(); i += 2) {  // every option takes one value
    if (i + 1 >= args.size()) throw std::invalid_argument("suite: `" + args[i] + "` needs a value");
    const std::string& value = args[i + 1];
    if (args[i] == "--scale") settings.scale = parse_number("--scale", value, 1e-6, 100);
    else if (args[i] == "--repetitions") settings.repetitions = static_cast<size_t>(parse_number("--repetitions", value, 2, 1000));
    else if (args[i] == "--timeout") settings.timeout_seconds = parse_number("--timeout", value, 1, 86400);
    else if (args[i] == "--only") settings.only = value;
    else throw std::invalid_argument("suite: unknown option `" + args[i] + "` (--scale, --repetitions, --timeout, --only)");
  }
  if (!settings.only.empty() &&
      std::none_of(suite_entries().begin(), suite_entries().end(),
                   [&](const SuiteEntry& entry) { return entry.kind == settings.only; })) {
    throw std::invalid_argument("--only: no kind `" + settings.only + "` in the suite");
  }
  return settings;
}

// Ids of the loaded plugins, from a runtime over the same search path as the children.
std::vector<std::string> loaded_plugins(const std::vector<std::string>& plugin_paths) {
  dpt_runtime* runtime = workloads::open_runtime(plugin_paths, DPT_LOG_ERROR);
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < dpt_runtime_plugin_count(runtime); ++i) ids.push_back(dpt_runtime_plugin(runtime, i)->descriptor->id);
  dpt_runtime_destroy(runtime);
  return ids;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  for (const std::string& candidate : ids) {
    if (candidate == id) return true;
  }
  return false;
}

struct Row {
  std::string kind, metric, baseline, optimized, ratio, verdict;
};

// The path of `mpirun` on PATH, or "".
std::string find_mpirun() {
  const char* path = std::getenv("PATH");
  std::string folders = path == nullptr ? "" : path;
  for (size_t start = 0; start <= folders.size();) {
    const size_t end = std::min(folders.find(':', start), folders.size());
    const std::string candidate = folders.substr(start, end - start) + "/mpirun";
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// `mpirun -np N`, oversubscribed (the suite runs on small machines), as root when we are.
std::vector<std::string> mpirun_launcher(const std::string& mpirun, uint32_t ranks) {
  std::vector<std::string> words{mpirun, "--oversubscribe"};
  if (geteuid() == 0) words.emplace_back("--allow-run-as-root");
#ifdef DOPANT_SANITIZED
  // Open MPI's own allocations in its unloaded components read as leaks to LeakSanitizer
  // (scripts/check-sanitized.sh); the ranks keep every other check.
  const char* asan = std::getenv("ASAN_OPTIONS");
  words.emplace_back("-x");
  words.push_back("ASAN_OPTIONS=" + std::string(asan != nullptr ? asan : "") + (asan != nullptr ? ":" : "") +
                  "detect_leaks=0");
#endif
  words.emplace_back("-np");
  words.push_back(std::to_string(ranks));
  return words;
}

// Why an entry cannot run, or empty when it can.
std::string skip_reason(const SuiteEntry& entry, const std::vector<std::string>& loaded) {
  const bool has_baseline = contains(loaded, entry.baseline);
  const bool has_optimized = contains(loaded, entry.optimized);
  if (entry.run_file.empty() || (!has_baseline && !has_optimized)) {
    return "skipped: plugins `" + entry.baseline + "` and `" + entry.optimized + "` are not installed";
  }
  if (!has_baseline) return "skipped: plugin `" + entry.baseline + "` is not installed";
  if (!has_optimized) return "skipped: plugin `" + entry.optimized + "` is not installed";
  if (entry.ranks != 0 && find_mpirun().empty()) {
    return "skipped: mpirun not found (this row runs under mpirun -np " + std::to_string(entry.ranks) + ")";
  }
  return "";
}

Row measure(const SuiteEntry& entry, const SuiteSettings& settings, const std::string& self_executable,
            const std::vector<std::string>& plugin_paths) {
  const TemporaryRunFile run_file(scaled_run_file(entry.run_file, settings.scale));
  // Under mpirun the ranks need dopant's real path: /proc/self/exe would be mpirun there.
  const std::string executable =
      entry.ranks != 0 ? std::filesystem::canonical(self_executable).string() : self_executable;
  ab::ProcessBackend backend(executable, plugin_paths, run_file.path(), settings.timeout_seconds);
  if (entry.ranks != 0) backend.set_launcher(mpirun_launcher(find_mpirun(), entry.ranks));
  ab::AbSettings ab_settings;
  ab_settings.repetitions = settings.repetitions;
  ab::ProgressLine progress(ab::stderr_is_terminal());
  const ab::AbSamples samples =
      ab::collect_samples(backend, run_file.path(), {"base", "optimized"}, ab_settings, progress);
  for (const ab::MetricResult& metric : ab::compare_all(samples, ab_settings.compare)) {
    if (metric.info.name != entry.metric || metric.comparisons.empty()) continue;
    const ab::Comparison& c = metric.comparisons.front();
    const std::string unit = metric.info.unit.empty() ? "" : " " + metric.info.unit;
    return {entry.kind, entry.metric, ab::short_number(c.base.median) + unit,
            ab::short_number(c.candidate.median) + unit,
            ab::short_number(c.ratio.ratio) + " [" + ab::short_number(c.ratio.low) + ", " +
                ab::short_number(c.ratio.high) + "]",
            ab::verdict_name(c.verdict)};
  }
  throw std::runtime_error("the workload reported no `" + entry.metric + "` metric");
}

void print_rows(const std::vector<Row>& rows) {
  std::printf("\n%-11s %-18s %-14s %-22s %-24s %s\n", "KIND", "METRIC", "BASELINE", "OPTIMIZED", "RATIO [95% CI]",
              "VERDICT");
  for (const Row& row : rows) {
    std::printf("%-11s %-18s %-14s %-22s %-24s %s\n", row.kind.c_str(), row.metric.c_str(), row.baseline.c_str(),
                row.optimized.c_str(), row.ratio.c_str(), row.verdict.c_str());
  }
}

}  // namespace

int command_suite(const std::vector<std::string>& args, const std::string& self_executable,
                  const std::vector<std::string>& plugin_paths) {
  const SuiteSettings settings = parse_settings(args);
  const std::vector<std::string> loaded = loaded_plugins(plugin_paths);
  std::vector<Row> rows;
  int status = 0;
  for (const SuiteEntry& entry : suite_entries()) {
    if (!settings.only.empty() && entry.kind != settings.only) continue;
    const std::string reason = skip_reason(entry, loaded);
    const std::string pair = entry.baseline + " vs " + entry.optimized;
    if (!reason.empty()) {
      std::printf("%-11s %s: %s\n", entry.kind.c_str(), pair.c_str(), reason.c_str());
      rows.push_back({entry.kind, "-", entry.baseline, entry.optimized, "-", "skipped"});
      continue;
    }
    std::printf("%-11s %s: running %zu repetitions each at scale %s\n", entry.kind.c_str(), pair.c_str(),
                settings.repetitions, ab::short_number(settings.scale).c_str());
    std::fflush(stdout);
    try {
      rows.push_back(measure(entry, settings, self_executable, plugin_paths));
    } catch (const std::exception& e) {
      std::printf("%-11s %s: failed: %s\n", entry.kind.c_str(), pair.c_str(), e.what());
      rows.push_back({entry.kind, entry.metric, entry.baseline, entry.optimized, "-", "failed"});
      status = 1;
    }
  }
  print_rows(rows);
  return status;
}

}  // namespace dopant::suite
