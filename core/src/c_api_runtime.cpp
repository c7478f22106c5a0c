// C API: versions, errors, runtime lifetime, plugin loading and listing, workloads,
// device selection and metrics.
#include "error.hpp"
#include "runtime_state.hpp"
#include "search_path.hpp"

#include <dopant/runtime.h>
#include <dopant/support/text.hpp>
#include <dopant/support/thread_limit.hpp>

#include <algorithm>
#include <cstring>

using dopant::guard;

namespace {

void copy_metric(const dopant::MetricRecord& record, dpt_metric* out) {
  dpt_metric metric{};
  metric.struct_size = sizeof metric;
  metric.name = record.name.c_str();
  metric.value = record.value;
  metric.unit = record.unit.c_str();
  metric.better = record.better;
  const uint32_t room = out->struct_size < sizeof metric ? out->struct_size : sizeof metric;
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(uint32_t), reinterpret_cast<const char*>(&metric) + sizeof(uint32_t),
              room > sizeof(uint32_t) ? room - sizeof(uint32_t) : 0);
}

}  // namespace

extern "C" {

DPT_API const char* dpt_version(void) { return DOPANT_VERSION; }
DPT_API uint32_t dpt_abi_major(void) { return DPT_ABI_MAJOR; }
DPT_API uint32_t dpt_abi_minor(void) { return DPT_ABI_MINOR; }

DPT_API dpt_code dpt_error_get_code(const dpt_error* error) { return error != nullptr ? error->code : DPT_OK; }
DPT_API const char* dpt_error_get_message(const dpt_error* error) {
  return error != nullptr ? error->message.c_str() : "";
}
DPT_API void dpt_error_destroy(dpt_error* error) { delete error; }
DPT_API dpt_error* dpt_error_create(dpt_code code, const char* message) {
  return dopant::make_error(code, message != nullptr ? message : "");
}

DPT_API dpt_error* dpt_runtime_create(const dpt_runtime_options* options, dpt_runtime** out) {
  if (out == nullptr) return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_create: `out` is NULL");
  *out = nullptr;
  dpt_runtime_options given{};
  given.struct_size = sizeof given;
  given.log_level = DPT_LOG_WARN;
  if (options != nullptr) {
    if (options->struct_size < DPT_STRUCT_SIZE(dpt_runtime_options, plugin_path)) {
      return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_create: options.struct_size " +
                                                          std::to_string(options->struct_size) + " is too small");
    }
    std::memcpy(reinterpret_cast<char*>(&given) + sizeof(uint32_t), reinterpret_cast<const char*>(options) + sizeof(uint32_t),
                std::min<size_t>(options->struct_size, sizeof given) - sizeof(uint32_t));
  }
  if (given.threads > dopant::max_pool_threads()) {
    return dopant::make_error(DPT_INVALID_ARGUMENT,
                              "dpt_runtime_create: options.threads = " + std::to_string(given.threads) +
                                  " is more than " + std::to_string(dopant::max_pool_threads()) +
                                  ", the most on this machine (8 per core, at least 64)");
  }
  return guard([&] {
    auto runtime = std::make_unique<dpt_runtime>(given.threads, given.log_level);
    for (const dopant::SearchFolder& folder :
         dopant::plugin_search_path(given.plugin_path, given.skip_default_paths != 0)) {
      std::string folder_problem;
      const std::vector<std::string> files = dopant::plugin_files_in(folder.path, &folder_problem);
      if (!folder_problem.empty() && folder.named) runtime->load_problems.push_back(dopant::one_line(folder_problem));
      for (const std::string& file : files) {
        try {
          runtime->registry.load_library(file);
        } catch (const std::exception& e) {
          runtime->load_problems.push_back(dopant::one_line(e.what()));
          runtime->services.log(DPT_LOG_DEBUG, "runtime", e.what());
        }
      }
    }
    *out = runtime.release();
  });
}

// Instances still alive are destroyed newest first, each with a warning, and left as
// orphaned handles; then the registry releases its libraries (running deinit where this
// was the last runtime holding them).
DPT_API void dpt_runtime_destroy(dpt_runtime* runtime) {
  if (runtime == nullptr) return;
  std::vector<dpt_plugin_instance*> live;
  {
    std::lock_guard<std::mutex> lock(runtime->instances_lock);
    live.swap(runtime->live_instances);
  }
  for (auto instance = live.rbegin(); instance != live.rend(); ++instance) {
    const dopant::PluginEntry* plugin = (*instance)->plugin;
    const std::string line = "destroying a live instance of `" + plugin->schema.id + "` with its runtime";
    runtime->services.log(DPT_LOG_WARN, "runtime", line.c_str());
    dopant::table_destroy(plugin->table)((*instance)->handle);
    (*instance)->runtime = nullptr;
    (*instance)->handle = nullptr;
  }
  delete runtime;
}
DPT_API const dpt_host* dpt_runtime_host(dpt_runtime* runtime) { return runtime != nullptr ? &runtime->host : nullptr; }
DPT_API void dpt_runtime_cancel(dpt_runtime* runtime) {
  if (runtime != nullptr) runtime->services.cancelled = true;
}

DPT_API dpt_error* dpt_runtime_load_library(dpt_runtime* runtime, const char* path) {
  if (runtime == nullptr || path == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_load_library: `runtime` or `path` is NULL");
  }
  return guard([&] { runtime->registry.load_library(path); });
}

DPT_API uint32_t dpt_runtime_load_problem_count(dpt_runtime* runtime) {
  return runtime != nullptr ? static_cast<uint32_t>(runtime->load_problems.size()) : 0;
}
DPT_API const char* dpt_runtime_load_problem(dpt_runtime* runtime, uint32_t index) {
  return runtime != nullptr && index < runtime->load_problems.size() ? runtime->load_problems[index].c_str() : nullptr;
}

DPT_API uint32_t dpt_runtime_plugin_count(dpt_runtime* runtime) {
  return runtime != nullptr ? static_cast<uint32_t>(runtime->registry.plugins().size()) : 0;
}
DPT_API const dpt_plugin_info* dpt_runtime_plugin(dpt_runtime* runtime, uint32_t index) {
  if (runtime == nullptr) return nullptr;
  const auto& plugins = runtime->registry.plugins();
  return index < plugins.size() ? &plugins[index]->info : nullptr;
}
DPT_API const dpt_plugin_info* dpt_runtime_find_plugin(dpt_runtime* runtime, const char* id) {
  if (runtime == nullptr || id == nullptr) return nullptr;
  const dopant::PluginEntry* entry = runtime->registry.find(id);
  return entry != nullptr ? &entry->info : nullptr;
}

DPT_API dpt_error* dpt_runtime_declare_workload(dpt_runtime* runtime, const dpt_workload_decl* decl) {
  if (runtime == nullptr || decl == nullptr || decl->struct_size < DPT_WORKLOAD_DECL_SIZE_1_0 ||
      decl->name == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_declare_workload: NULL or incomplete declaration");
  }
  return guard([&] {
    dopant::WorkloadSchema schema;
    schema.name = decl->name;
    schema.params = dopant::parse_param_decls(decl->params, decl->param_count, schema.name);
    for (uint32_t i = 0; i < decl->slot_count; ++i) schema.slots.push_back(decl->slots[i]);
    runtime->workloads[schema.name] = std::move(schema);
  });
}

DPT_API dpt_error* dpt_runtime_set_device(dpt_runtime* runtime, const dpt_device_options* options) {
  if (runtime == nullptr || options == nullptr || options->struct_size < DPT_DEVICE_OPTIONS_SIZE_1_0 ||
      options->kind == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_set_device: NULL or incomplete options");
  }
  return guard([&] { runtime->services.set_device(options->kind, options->index, options->memory_limit); });
}

DPT_API dpt_error* dpt_runtime_set_comm(dpt_runtime* runtime, const char* backend) {
  if (runtime == nullptr || backend == nullptr) {
    return dopant::make_error(DPT_INVALID_ARGUMENT, "dpt_runtime_set_comm: NULL argument");
  }
  return guard([&] { runtime->services.set_comm(backend); });
}

DPT_API void dpt_runtime_reset_memory_peaks(dpt_runtime* runtime) {
  if (runtime != nullptr) runtime->services.reset_peaks();
}

DPT_API uint32_t dpt_runtime_metric_count(dpt_runtime* runtime) {
  if (runtime == nullptr) return 0;
  runtime->metric_snapshot = runtime->services.metrics();
  return static_cast<uint32_t>(runtime->metric_snapshot.size());
}
DPT_API void dpt_runtime_metric_get(dpt_runtime* runtime, uint32_t index, dpt_metric* out) {
  if (runtime == nullptr || out == nullptr || index >= runtime->metric_snapshot.size()) return;
  copy_metric(runtime->metric_snapshot[index], out);
}
DPT_API void dpt_runtime_metrics_clear(dpt_runtime* runtime) {
  if (runtime == nullptr) return;
  runtime->services.clear_metrics();
  runtime->metric_snapshot.clear();
}

}  // extern "C"
