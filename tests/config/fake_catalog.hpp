// A SchemaCatalog for tests: a few optimizer and router plugins and two workloads, declared
// through dpt_param_decl exactly as real plugins do, plus a helper that returns the error
// text of a run file.
#pragma once

#include "config.hpp"

#include <string>
#include <string_view>

namespace dopant::testing {

class FakeCatalog : public SchemaCatalog {
 public:
  FakeCatalog();
  const PluginSchema* find_plugin(std::string_view id) const override;
  std::vector<std::string> plugin_ids() const override;
  const WorkloadSchema* find_workload(std::string_view name) const override;
  std::vector<std::string> workload_names() const override;

 private:
  std::vector<PluginSchema> plugins_;
  std::vector<WorkloadSchema> workloads_;
};

const FakeCatalog& fake_catalog();

// Parses `text` as "run.toml" against fake_catalog().
RunConfig parse(std::string_view text);

// The message of the Error that parsing `text` throws (the test fails when none is thrown or
// its code is not DPT_INVALID_ARGUMENT).
std::string parse_error(std::string_view text);

}  // namespace dopant::testing
