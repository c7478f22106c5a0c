// C API: creating instances of any kind through their factory, handing out the widened
// kind table, and the parameters of one plugin from TOML text.
#include "error.hpp"
#include "runtime_state.hpp"

#include <dopant/runtime.h>
#include <dopant/support/text.hpp>

#include <algorithm>

extern "C" {

DPT_API dpt_error* dpt_plugin_instance_create(dpt_runtime* runtime, const char* plugin_id, const dpt_config* params,
                                              dpt_plugin_instance** out) {
  if (runtime == nullptr || plugin_id == nullptr || out == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_plugin_instance_create: NULL argument");
  }
  *out = nullptr;
  return dopant::guard([&] {
    const dopant::PluginEntry* plugin = runtime->registry.find(plugin_id);
    if (plugin == nullptr) {
      throw dopant::Error(DPT_NOT_FOUND, std::string("no plugin `") + plugin_id + "` is loaded" +
                                             dopant::did_you_mean_suffix(plugin_id, runtime->plugin_ids()));
    }
    if (params == nullptr) params = &plugin->defaults;
    if (params->owner != plugin->schema.id) {
      throw dopant::Error(DPT_INVALID_ARGUMENT, "parameters of `" + params->owner + "` given to plugin `" +
                                                    plugin->schema.id + "`");
    }
    dpt_instance* handle = nullptr;
    dopant::throw_if_error(dopant::table_create(plugin->table)(&plugin->host, params, &handle),
                           "plugin `" + plugin->schema.id + "`: create");
    if (handle == nullptr) {
      throw dopant::Error(DPT_INTERNAL, "plugin `" + plugin->schema.id + "`: create returned no instance");
    }
    auto wrapper = std::make_unique<dpt_plugin_instance>(dpt_plugin_instance{runtime, plugin, handle});
    try {
      std::lock_guard<std::mutex> guard(runtime->instances_lock);
      runtime->live_instances.push_back(wrapper.get());
    } catch (...) {
      dopant::table_destroy(plugin->table)(handle);
      throw;
    }
    *out = wrapper.release();
  });
}

DPT_API const void* dpt_plugin_instance_table(const dpt_plugin_instance* instance) {
  return instance != nullptr && instance->runtime != nullptr ? instance->plugin->table : nullptr;
}
DPT_API dpt_instance* dpt_plugin_instance_handle(const dpt_plugin_instance* instance) {
  return instance != nullptr && instance->runtime != nullptr ? instance->handle : nullptr;
}
DPT_API const dpt_plugin_info* dpt_plugin_instance_info(const dpt_plugin_instance* instance) {
  return instance != nullptr && instance->runtime != nullptr ? &instance->plugin->info : nullptr;
}

DPT_API void dpt_plugin_instance_destroy(dpt_plugin_instance* instance) {
  if (instance == nullptr) return;
  if (dpt_runtime* runtime = instance->runtime) {
    {
      std::lock_guard<std::mutex> guard(runtime->instances_lock);
      auto& live = runtime->live_instances;
      live.erase(std::remove(live.begin(), live.end(), instance), live.end());
    }
    dopant::table_destroy(instance->plugin->table)(instance->handle);
  }
  delete instance;
}

DPT_API dpt_error* dpt_plugin_params_parse(dpt_runtime* runtime, const char* plugin_id, const char* text,
                                           const char* source_name, dpt_config** out) {
  if (runtime == nullptr || plugin_id == nullptr || text == nullptr || out == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_plugin_params_parse: NULL argument");
  }
  *out = nullptr;
  return dopant::guard([&] {
    const dopant::PluginEntry* plugin = runtime->registry.find(plugin_id);
    if (plugin == nullptr) {
      throw dopant::Error(DPT_NOT_FOUND, std::string("no plugin `") + plugin_id + "` is loaded" +
                                             dopant::did_you_mean_suffix(plugin_id, runtime->plugin_ids()));
    }
    *out = new dpt_config(dopant::parse_plugin_params(text, source_name != nullptr ? source_name : "<params>",
                                                      plugin->schema));
  });
}

DPT_API void dpt_plugin_params_destroy(dpt_config* params) { delete params; }

}  // extern "C"
