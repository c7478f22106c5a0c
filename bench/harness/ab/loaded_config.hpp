// A runtime with the plugins and built-in workloads loaded, and a run file validated
// against them. The harness reads the configurations' names from it before any run; the
// in-process backend also runs from it.
#pragma once

#include <dopant/runtime.h>
#include <dopant/support/c_api_errors.hpp>

#include <string>
#include <vector>

namespace dopant::ab {

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

}  // namespace dopant::ab
