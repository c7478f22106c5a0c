// The concrete objects behind the opaque handles of the C API: the runtime (host
// services, registry, declared workloads, live instances), a loaded run configuration and
// an instance.
#pragma once

#include "config.hpp"
#include "host/host_services.hpp"
#include "registry.hpp"

#include <dopant/runtime.h>

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

struct dpt_runtime final : dopant::SchemaCatalog {
  dpt_runtime(uint32_t threads, dpt_log_level log_level)
      : services(threads, log_level), registry(services) {
    host = dopant::make_host_table(&host_context);
  }

  const dopant::PluginSchema* find_plugin(std::string_view id) const override {
    const dopant::PluginEntry* entry = registry.find(id);
    return entry != nullptr ? &entry->schema : nullptr;
  }
  std::vector<std::string> plugin_ids() const override {
    std::vector<std::string> ids;
    for (const auto& plugin : registry.plugins()) ids.push_back(plugin->descriptor->id);
    return ids;
  }
  const dopant::WorkloadSchema* find_workload(std::string_view name) const override {
    auto found = workloads.find(std::string(name));
    return found != workloads.end() ? &found->second : nullptr;
  }
  std::vector<std::string> workload_names() const override {
    std::vector<std::string> names;
    for (const auto& [name, schema] : workloads) names.push_back(name);
    return names;
  }

  dopant::HostServices services;
  dopant::HostContext host_context{&services, "runtime"};
  dpt_host host{};
  dopant::Registry registry;
  std::vector<std::string> load_problems;
  std::map<std::string, dopant::WorkloadSchema> workloads;
  std::vector<dopant::MetricRecord> metric_snapshot;  // backs strings handed out by metric_get
  std::mutex instances_lock;
  std::vector<dpt_plugin_instance*> live_instances;  // in creation order
};

struct dpt_run_config {
  dopant::RunConfig config;
};

// `runtime` is NULL once the runtime was destroyed under the instance: the plugin's
// instance is gone then, and only dpt_plugin_instance_destroy (which frees this handle)
// remains valid.
struct dpt_plugin_instance {
  dpt_runtime* runtime;
  const dopant::PluginEntry* plugin;
  dpt_instance* handle;
};
