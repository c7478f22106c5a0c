// `dopant ab`: parse the options (with range checks), validate the run file, run the
// interleaved session through the chosen backend, compare, then print the table and write
// every requested report at once. Under mpirun every rank runs the session in process and
// rank 0 alone reports.

#include "ab_command.hpp"

#include "mpi_launch.hpp"
#include "reports.hpp"
#include "session.hpp"

#include <dopant/support/output_files.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>

namespace dopant::ab {

// Parsing of `dopant ab` arguments, with range checks.

const char* const kAbUsage =
    "usage: dopant ab FILE [--repetitions N] [--warmup N] [--seed N] [--timeout SECONDS] [--in-process]\n"
    "                      [--noise-threshold PERCENT] [--resamples N]\n"
    "                      [--json OUT] [--csv OUT] [--markdown OUT] [--svg OUT]\n"
    "\n"
    "Runs the base configuration of FILE and each [variants.NAME], interleaved (A B B A ...),\n"
    "each repetition in a fresh `dopant run` process unless --in-process, after --warmup\n"
    "uncounted rounds (default 1). Compares every variant with the base on every metric:\n"
    "medians and MADs, ratio of medians with a seeded bootstrap 95% CI, Mann-Whitney U p-value,\n"
    "and a verdict that is \"no change\" unless p < 0.05 and the whole CI lies beyond the noise\n"
    "threshold (default 2%). Defaults: --repetitions 7, --seed 1, --resamples 10000, no timeout.\n"
    "A run whose workload fails with an error (e.g. out of memory) is a result: the reports list\n"
    "it, and the values it reported before failing count. So is a run whose process is ended by a\n"
    "signal or killed at --timeout: the reports name the signal and the repetition.\n";

namespace {

unsigned long long parse_count(const std::string& flag, const std::string& text, unsigned long long minimum) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || value < minimum) {
    throw std::invalid_argument(flag + ": `" + text + "` is not a whole number >= " + std::to_string(minimum));
  }
  return value;
}

double parse_positive(const std::string& flag, std::string text, bool percent) {
  if (percent && !text.empty() && text.back() == '%') text.pop_back();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value > 0) || !(value < 1e9)) {
    throw std::invalid_argument(flag + ": `" + text + "` is not a positive number");
  }
  return value;
}

}  // namespace

AbOptions parse_ab_options(const std::vector<std::string>& args) {
  AbOptions options;
  std::vector<std::string> positional;
  std::set<std::string> given;  // an option given twice is refused: the last would silently win
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--help" || word == "-h") {
      options.help = true;
      continue;
    }
    if (word == "--in-process") {
      options.settings.fresh_processes = false;
      continue;
    }
    if (word.rfind("--", 0) != 0) {
      positional.push_back(word);
      continue;
    }
    if (i + 1 >= args.size()) throw std::invalid_argument(word + ": missing value");
    const std::string& value = args[++i];
    if (!given.insert(word).second) throw std::invalid_argument(word + ": given twice; give it once");
    AbSettings& s = options.settings;
    if (word == "--repetitions") {
      s.repetitions = parse_count(word, value, 2);
    } else if (word == "--warmup") {
      s.warmups = parse_count(word, value, 0);
    } else if (word == "--seed") {
      s.compare.bootstrap.seed = parse_count(word, value, 0);
    } else if (word == "--resamples") {
      s.compare.bootstrap.resamples = parse_count(word, value, 10000);
    } else if (word == "--timeout") {
      s.timeout_seconds = parse_positive(word, value, false);
    } else if (word == "--noise-threshold") {
      s.compare.rule.noise_threshold = parse_positive(word, value, true) / 100;
    } else if (word == "--json") {
      options.json_path = value;
    } else if (word == "--csv") {
      options.csv_path = value;
    } else if (word == "--markdown") {
      options.markdown_path = value;
    } else if (word == "--svg") {
      options.svg_path = value;
    } else {
      throw std::invalid_argument("ab: unknown option `" + word + "`\n" + kAbUsage);
    }
  }
  if (options.help) return options;
  if (!options.settings.fresh_processes && options.settings.timeout_seconds > 0) {
    throw std::invalid_argument("--timeout applies to fresh processes; it cannot be combined with --in-process");
  }
  if (positional.size() != 1) throw std::invalid_argument(std::string("ab: expected one run file\n") + kAbUsage);
  options.config_file = positional[0];
  return options;
}

// The requested reports, rendered from `result` (nullptr: paths only, for the check).
std::vector<OutputFile> report_files(const AbOptions& options, const AbResult* result) {
  std::vector<OutputFile> files;
  const auto add = [&](const char* option, const std::optional<std::string>& path, std::string (*render)(const AbResult&)) {
    if (path) files.push_back({option, *path, result ? render(*result) : std::string()});
  };
  add("--json", options.json_path, render_json);
  add("--csv", options.csv_path, render_csv);
  add("--markdown", options.markdown_path, render_markdown);
  add("--svg", options.svg_path, render_svg);
  return files;
}

// `dopant ab`: check every report path, validate the run file, run the interleaved session
// through the chosen backend, compare, then print the table and write every report at once.

int command_ab(const std::vector<std::string>& args, const std::string& self_executable,
               const std::vector<std::string>& plugin_paths) {
  const AbOptions options = parse_ab_options(args);
  if (options.help) {
    std::fputs(kAbUsage, stdout);
    return 0;
  }
  check_outputs(report_files(options, nullptr), {options.config_file});  // before any run
  const LoadedConfig loaded(options.config_file, plugin_paths);
  const std::vector<std::string> variants = loaded.variant_names();
  if (variants.size() < 2) {
    throw std::invalid_argument(options.config_file + ": no [variants.NAME] tables to compare with the base");
  }
  // Under mpirun a fresh process could not join the ranks' job: every rank runs the same
  // schedule in its own process, and rank 0 alone prints and writes.
  AbSettings settings = options.settings;
  const bool reporting = workloads::mpirun_rank() == 0;
  if (workloads::started_by_mpirun()) {
    if (settings.timeout_seconds > 0) throw std::invalid_argument("--timeout applies to fresh processes, which mpirun runs cannot use");
    settings.fresh_processes = false;
  }
  std::unique_ptr<RunBackend> backend;
  if (settings.fresh_processes) {
    if (self_executable.empty()) throw std::runtime_error("ab: the path of the dopant executable is unknown");
    backend = std::make_unique<ProcessBackend>(self_executable, plugin_paths, options.config_file,
                                               options.settings.timeout_seconds);
  } else {
    backend = std::make_unique<InProcessBackend>(loaded);
  }

  ProgressLine progress(reporting && stderr_is_terminal());
  AbResult result;
  result.settings = settings;
  result.samples = collect_samples(*backend, options.config_file, variants, settings, progress);
  result.metrics = compare_all(result.samples, settings.compare);
  if (!reporting) return 0;

  std::fputs(render_table(result).c_str(), stdout);  // first: a failed write keeps the table
  std::fflush(stdout);
  write_outputs(report_files(options, &result), {options.config_file});
  return 0;
}

}  // namespace dopant::ab
