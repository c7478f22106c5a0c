// Opening a runtime and loading a run file through the host-side C API.
#include "loaded_config.hpp"

#include "workloads.hpp"

#include <stdexcept>

namespace dopant::ab {

LoadedConfig::LoadedConfig(const std::string& file, const std::vector<std::string>& plugin_paths) {
  std::string joined;
  for (const std::string& path : plugin_paths) joined += (joined.empty() ? "" : ":") + path;
  dpt_runtime_options options{};
  options.struct_size = sizeof options;
  options.plugin_path = joined.empty() ? nullptr : joined.c_str();
  options.log_level = DPT_LOG_WARN;
  throw_if_error(dpt_runtime_create(&options, &runtime_), "");
  try {
    throw_if_error(workloads::declare_builtin(runtime_), "");
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

}  // namespace dopant::ab
