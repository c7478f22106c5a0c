// `dopant ab`: validate the run file, run the interleaved session through the chosen
// backend, compare, then print the table and write every requested report at once.
#include "ab_command.hpp"

#include "ab_options.hpp"
#include "ab_session.hpp"
#include "atomic_files.hpp"
#include "in_process_backend.hpp"
#include "loaded_config.hpp"
#include "process_backend.hpp"
#include "reports.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace dopant::ab {

int command_ab(const std::vector<std::string>& args, const std::string& self_executable,
               const std::vector<std::string>& plugin_paths) {
  const AbOptions options = parse_ab_options(args);
  if (options.help) {
    std::fputs(kAbUsage, stdout);
    return 0;
  }
  const LoadedConfig loaded(options.config_file, plugin_paths);
  const std::vector<std::string> variants = loaded.variant_names();
  if (variants.size() < 2) {
    throw std::invalid_argument(options.config_file + ": no [variants.NAME] tables to compare with the base");
  }
  std::unique_ptr<RunBackend> backend;
  if (options.settings.fresh_processes) {
    if (self_executable.empty()) throw std::runtime_error("ab: the path of the dopant executable is unknown");
    backend = std::make_unique<ProcessBackend>(self_executable, plugin_paths, options.config_file,
                                               options.settings.timeout_seconds);
  } else {
    backend = std::make_unique<InProcessBackend>(loaded);
  }

  ProgressLine progress(stderr_is_terminal());
  AbResult result;
  result.settings = options.settings;
  result.samples = collect_samples(*backend, options.config_file, variants, options.settings, progress);
  result.metrics = compare_all(result.samples, options.settings.compare);

  std::vector<OutputFile> outputs;
  if (options.json_path) outputs.push_back({*options.json_path, render_json(result)});
  if (options.csv_path) outputs.push_back({*options.csv_path, render_csv(result)});
  if (options.markdown_path) outputs.push_back({*options.markdown_path, render_markdown(result)});
  if (options.svg_path) outputs.push_back({*options.svg_path, render_svg(result)});
  write_files_atomically(outputs);
  std::fputs(render_table(result).c_str(), stdout);
  return 0;
}

}  // namespace dopant::ab
