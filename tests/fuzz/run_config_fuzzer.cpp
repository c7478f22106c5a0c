// libFuzzer target for the TOML run file: the bytes are a run file, parsed and validated
// against the test catalog (tests/config/fake_catalog) the way `dopant run` reads one: depth
// guard, toml++, [run], [device], slots, variants and every parameter's type and bounds. A
// rejected file must be a clean Error(DPT_INVALID_ARGUMENT); an accepted one must hold only
// values that its plugins' and workload's schemas allow. The same bytes are also read as one
// plugin's parameters (dpt_plugin_params_parse's path), under the same rules.
#include "config.hpp"
#include "error.hpp"
#include "fake_catalog.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using dopant::testing::fake_catalog;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "run_config_fuzzer: %s\n", what.c_str());
  std::abort();
}

// Every value in `config` is one its schema accepts, and every declared name has a value.
void check_values(const dpt_config& config, const std::vector<dopant::ParamSchema>& schemas) {
  if (config.values.size() != schemas.size()) fail("config of " + config.owner + " lacks values");
  for (const auto& schema : schemas) {
    const auto found = config.values.find(schema.name);
    if (found == config.values.end()) fail("no value for " + schema.name);
    std::string error;
    if (!dopant::check_value_bounds(schema, found->second, &error)) {
      fail("accepted value of " + schema.name + " is out of bounds: " + error);
    }
  }
}

void check_accepted(const dopant::RunConfig& config) {
  const auto* workload = fake_catalog().find_workload(config.workload);
  if (!workload) fail("accepted unknown workload " + config.workload);
  if (config.variants.empty() || config.variants.front().name != "base") fail("no base variant");
  for (const auto& variant : config.variants) {
    check_values(variant.workload_params, workload->params);
    for (const auto& slot : workload->slots) {
      if (!variant.slots.count(slot)) fail("variant " + variant.name + " lacks slot " + slot);
    }
    for (const auto& [slot, settings] : variant.slots) {
      const auto* plugin = fake_catalog().find_plugin(settings.plugin);
      if (!plugin) fail("slot " + slot + " holds unknown plugin " + settings.plugin);
      check_values(settings.params, plugin->params);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_accepted(dopant::parse_run_config(text, "fuzz.toml", fake_catalog()));
  } catch (const dopant::Error& error) {
    if (error.code() != DPT_INVALID_ARGUMENT) fail(std::string("unexpected error: ") + error.what());
  }
  for (const std::string& id : fake_catalog().plugin_ids()) {
    const dopant::PluginSchema& plugin = *fake_catalog().find_plugin(id);
    try {
      check_values(dopant::parse_plugin_params(text, "fuzz-params.toml", plugin), plugin.params);
    } catch (const dopant::Error& error) {
      if (error.code() != DPT_INVALID_ARGUMENT) fail(std::string("unexpected error: ") + error.what());
    }
  }
  return 0;
}
