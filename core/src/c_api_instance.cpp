// C API: creating instances of any kind through their factory, and handing out the
// widened kind table.
#include "error.hpp"
#include "runtime_state.hpp"

#include <dopant/runtime.h>

extern "C" {

DPT_API dpt_error* dpt_plugin_instance_create(dpt_runtime* runtime, const char* plugin_id, const dpt_config* params,
                                              dpt_plugin_instance** out) {
  if (plugin_id == nullptr || out == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_plugin_instance_create: NULL argument");
  }
  *out = nullptr;
  return dopant::guard([&] {
    const dopant::PluginEntry* plugin = runtime->registry.find(plugin_id);
    if (plugin == nullptr) throw dopant::Error(DPT_NOT_FOUND, std::string("no plugin `") + plugin_id + "` is loaded");
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
    *out = new dpt_plugin_instance{plugin, handle};
  });
}

DPT_API const void* dpt_plugin_instance_table(const dpt_plugin_instance* instance) { return instance->plugin->table; }
DPT_API dpt_instance* dpt_plugin_instance_handle(const dpt_plugin_instance* instance) { return instance->handle; }
DPT_API const dpt_plugin_info* dpt_plugin_instance_info(const dpt_plugin_instance* instance) {
  return &instance->plugin->info;
}

DPT_API void dpt_plugin_instance_destroy(dpt_plugin_instance* instance) {
  if (instance == nullptr) return;
  dopant::table_destroy(instance->plugin->table)(instance->handle);
  delete instance;
}

}  // extern "C"
