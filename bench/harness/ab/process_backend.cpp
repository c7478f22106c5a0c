// The fresh-process backend: spawn `dopant run`, read its JSON (a failed run's too, when it
// exited with status 1 and wrote one naming the error), return a crash or a timeout as the
// run's failure, and report any other failure with the child's last lines of stderr.
#include "process_backend.hpp"

#include "child_process.hpp"
#include "run_result_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace dopant::ab {
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
      timeout_seconds_(timeout_seconds) {
  std::string pattern = (std::filesystem::temp_directory_path() / "dopant-ab-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary folder in " + pattern);
  folder_ = pattern;
}

ProcessBackend::~ProcessBackend() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

RunOutput ProcessBackend::run(const std::string& variant) {
  const std::string json_path = folder_ + "/run.json";
  const std::string stderr_path = folder_ + "/stderr.txt";
  std::filesystem::remove(json_path);
  std::vector<std::string> argv{executable_};
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

}  // namespace dopant::ab
