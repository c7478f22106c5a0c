// The run configuration: one TOML file naming the workload, the device, the plugin of each
// slot with its parameters, and variants for A/B. Validated against the schemas of the
// loaded plugins and declared workloads; every problem is reported with file:line:column.
#pragma once

#include "params.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dopant {

struct PluginSchema {
  std::string id;
  std::string kind;  // "dopant.optimizer/1"
  std::vector<ParamSchema> params;
};

struct WorkloadSchema {
  std::string name;
  std::vector<ParamSchema> params;
  std::vector<std::string> slots;  // slots the workload needs
};

// What the validator can look up: the loaded plugins and declared workloads.
class SchemaCatalog {
 public:
  virtual ~SchemaCatalog() = default;
  virtual const PluginSchema* find_plugin(std::string_view id) const = 0;
  virtual std::vector<std::string> plugin_ids() const = 0;
  virtual const WorkloadSchema* find_workload(std::string_view name) const = 0;
  virtual std::vector<std::string> workload_names() const = 0;
};

// The slots a config may set, each bound to one kind: optimizer, router, parallel,
// sandbox, checkpoint.
const std::vector<std::pair<std::string, std::string>>& slot_kinds();

struct DeviceConfig {
  std::string kind = "cpu";  // "cpu" or "cuda"
  int32_t index = 0;
  uint64_t memory_limit = 0;  // bytes, 0: none
};

struct SlotConfig {
  std::string plugin;
  dpt_config params;
};

struct VariantConfig {
  std::string name;  // "base" for the base configuration
  DeviceConfig device;
  dpt_config workload_params;
  std::map<std::string, SlotConfig> slots;
};

struct RunConfig {
  std::string source;  // file name used in messages
  std::string workload;
  uint32_t repetitions = 7;
  std::string comm = "auto";  // backend of the world communicator: "auto", "local", "mpi" or "nccl"
  std::vector<VariantConfig> variants;  // [0] is the base
};

// Parses and validates. Throws Error(DPT_INVALID_ARGUMENT) whose message holds every
// problem found, one per line: "FILE:LINE:COLUMN: text".
RunConfig parse_run_config(std::string_view text, const std::string& source,
                           const SchemaCatalog& catalog);
// One plugin's parameters from TOML text whose top-level keys are its parameter names
// ("lr = 1e-3"), validated like a slot table of a run file, with the same messages.
dpt_config parse_plugin_params(std::string_view text, const std::string& source,
                               const PluginSchema& plugin);
// Reads the file first; a missing or unreadable file is Error(DPT_NOT_FOUND) naming it.
RunConfig load_run_config(const std::string& path, const SchemaCatalog& catalog);

}  // namespace dopant
