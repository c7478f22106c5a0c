// C API: loading a run configuration and reading its variants, slots and device.
#include "error.hpp"
#include "runtime_state.hpp"

#include <dopant/runtime.h>

namespace {

const dopant::VariantConfig* variant_of(const dpt_run_config* config, uint32_t variant) {
  if (config == nullptr || variant >= config->config.variants.size()) return nullptr;
  return &config->config.variants[variant];
}

const dopant::SlotConfig* slot_of(const dpt_run_config* config, uint32_t variant, const char* slot) {
  const dopant::VariantConfig* chosen = variant_of(config, variant);
  if (chosen == nullptr || slot == nullptr) return nullptr;
  auto found = chosen->slots.find(slot);
  return found != chosen->slots.end() ? &found->second : nullptr;
}

}  // namespace

extern "C" {

DPT_API dpt_error* dpt_run_config_load(dpt_runtime* runtime, const char* path, dpt_run_config** out) {
  if (runtime == nullptr || path == nullptr || out == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_run_config_load: NULL argument");
  }
  *out = nullptr;
  return dopant::guard([&] { *out = new dpt_run_config{dopant::load_run_config(path, *runtime)}; });
}

DPT_API dpt_error* dpt_run_config_parse(dpt_runtime* runtime, const char* text, const char* source_name,
                                        dpt_run_config** out) {
  if (runtime == nullptr || text == nullptr || out == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_run_config_parse: NULL argument");
  }
  *out = nullptr;
  return dopant::guard([&] {
    *out = new dpt_run_config{dopant::parse_run_config(text, source_name != nullptr ? source_name : "<text>", *runtime)};
  });
}

DPT_API void dpt_run_config_destroy(dpt_run_config* config) { delete config; }

DPT_API uint32_t dpt_run_config_variant_count(const dpt_run_config* config) {
  return config != nullptr ? static_cast<uint32_t>(config->config.variants.size()) : 0;
}
DPT_API const char* dpt_run_config_variant_name(const dpt_run_config* config, uint32_t variant) {
  const dopant::VariantConfig* chosen = variant_of(config, variant);
  return chosen != nullptr ? chosen->name.c_str() : nullptr;
}
DPT_API const char* dpt_run_config_workload(const dpt_run_config* config) {
  return config != nullptr ? config->config.workload.c_str() : nullptr;
}
DPT_API uint32_t dpt_run_config_repetitions(const dpt_run_config* config) {
  return config != nullptr ? config->config.repetitions : 0;
}
DPT_API const char* dpt_run_config_comm(const dpt_run_config* config) {
  return config != nullptr ? config->config.comm.c_str() : nullptr;
}
DPT_API const char* dpt_run_config_source(const dpt_run_config* config) {
  return config != nullptr ? config->config.source.c_str() : nullptr;
}

DPT_API const dpt_config* dpt_run_config_workload_params(const dpt_run_config* config, uint32_t variant) {
  const dopant::VariantConfig* chosen = variant_of(config, variant);
  return chosen != nullptr ? &chosen->workload_params : nullptr;
}

DPT_API void dpt_run_config_device(const dpt_run_config* config, uint32_t variant, dpt_device_options* out) {
  const dopant::VariantConfig* chosen = variant_of(config, variant);
  if (chosen == nullptr || out == nullptr || out->struct_size < DPT_DEVICE_OPTIONS_SIZE_1_0) return;
  out->kind = chosen->device.kind.c_str();
  out->index = chosen->device.index;
  out->memory_limit = chosen->device.memory_limit;
}

DPT_API const char* dpt_run_config_slot_plugin(const dpt_run_config* config, uint32_t variant, const char* slot) {
  const dopant::SlotConfig* chosen = slot_of(config, variant, slot);
  return chosen != nullptr ? chosen->plugin.c_str() : nullptr;
}
DPT_API const dpt_config* dpt_run_config_slot_params(const dpt_run_config* config, uint32_t variant, const char* slot) {
  const dopant::SlotConfig* chosen = slot_of(config, variant, slot);
  return chosen != nullptr ? &chosen->params : nullptr;
}

}  // extern "C"
