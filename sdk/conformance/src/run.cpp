// dopant::conformance::run: finds the plugins to check (one library by path, or one plugin
// id on the default search path), registers their checks and runs them with GoogleTest.
#include <dopant/conformance.hpp>
#include <dopant/checkpoint.h>

#include "kinds.hpp"
#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

namespace dopant::conformance {

namespace {

struct RuntimeDeleter {
  void operator()(dpt_runtime* runtime) const { dpt_runtime_destroy(runtime); }
};
using RuntimePtr = std::unique_ptr<dpt_runtime, RuntimeDeleter>;

bool names_library(const std::string& text) {
  return text.find('/') != std::string::npos ||
         (text.size() > 3 && text.compare(text.size() - 3, 3, ".so") == 0);
}

// A runtime on the CPU device; only the default search path when `default_paths`.
RuntimePtr open_runtime(bool default_paths, std::string* problem) {
  dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, default_paths ? 0 : 1,
                              DPT_LOG_WARN, 0};
  dpt_runtime* runtime = nullptr;
  *problem = ok_or_message(dpt_runtime_create(&options, &runtime));
  if (!problem->empty()) return nullptr;
  RuntimePtr owned(runtime);
  const dpt_device_options cpu{DPT_DEVICE_OPTIONS_SIZE_1_0, "cpu", 0, 0};
  *problem = ok_or_message(dpt_runtime_set_device(runtime, &cpu));
  return problem->empty() ? std::move(owned) : nullptr;
}

// The plugins of the library at `path`, loaded alone into `runtime`.
std::vector<const dpt_plugin_info*> load_library(dpt_runtime* runtime, const std::string& path,
                                                 std::string* problem) {
  if (!std::filesystem::exists(path)) {
    *problem = "no file " + path;
    return {};
  }
  const uint32_t before = dpt_runtime_plugin_count(runtime);
  *problem = ok_or_message(dpt_runtime_load_library(runtime, path.c_str()));
  std::vector<const dpt_plugin_info*> plugins;
  for (uint32_t i = before; problem->empty() && i < dpt_runtime_plugin_count(runtime); ++i) {
    plugins.push_back(dpt_runtime_plugin(runtime, i));
  }
  if (problem->empty() && plugins.empty()) *problem = path + " holds no plugin";
  return plugins;
}

// The plugin `id` among those found on the search path; load problems explain a miss.
std::vector<const dpt_plugin_info*> find_plugin(dpt_runtime* runtime, const std::string& id,
                                                std::string* problem) {
  if (const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime, id.c_str())) return {info};
  *problem = "no plugin `" + id + "` is loaded";
  return {};
}

void register_checks(const Target& target) {
  register_generic_checks(target);
  const char* kind = target.info->descriptor->kind;
  if (kind == nullptr) return;
  if (std::strcmp(kind, DPT_KIND_OPTIMIZER) == 0) register_optimizer_checks(target);
  if (std::strcmp(kind, DPT_KIND_ROUTER) == 0) {
    register_router_checks(target);
    if (target.info->descriptor->get_extension(DPT_EXT_ROUTER_REPLAY) != nullptr) register_router_replay_checks(target);
  }
  if (std::strcmp(kind, DPT_KIND_SANDBOX) == 0) register_sandbox_checks(target);
  if (std::strcmp(kind, DPT_KIND_PARALLEL) == 0) register_parallel_checks(target);
  if (std::strcmp(kind, DPT_KIND_CHECKPOINT) == 0) {
    register_checkpoint_checks(target);
    if (target.info->descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT) != nullptr) {
      register_checkpoint_convert_checks(target);
    }
  }
  // Parallel strategies get the generic checks only: theirs need a communicator.
}

}  // namespace

int run(const std::string& plugin_id_or_library_path, int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const bool is_path = names_library(plugin_id_or_library_path);
  std::string problem;
  RuntimePtr runtime = open_runtime(!is_path, &problem);
  std::vector<const dpt_plugin_info*> plugins;
  if (runtime != nullptr && is_path) {
    plugins = load_library(runtime.get(), plugin_id_or_library_path, &problem);
  } else if (runtime != nullptr) {
    plugins = find_plugin(runtime.get(), plugin_id_or_library_path, &problem);
  }
  // Every library that was refused is named, found or not: a refused duplicate of `id`
  // means another library's plugin is the one being checked.
  for (uint32_t i = 0; runtime != nullptr && i < dpt_runtime_load_problem_count(runtime.get()); ++i) {
    std::cerr << "dopant check: skipped " << dpt_runtime_load_problem(runtime.get(), i) << "\n";
  }
  if (!problem.empty()) {
    std::cerr << "dopant check: " << problem << "\n";
    return 2;
  }
  for (const dpt_plugin_info* info : plugins) register_checks(Target{runtime.get(), info});
  return RUN_ALL_TESTS() == 0 ? 0 : 1;
}

}  // namespace dopant::conformance
