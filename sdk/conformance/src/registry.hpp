// Registration of conformance checks as GoogleTest tests: one suite per plugin, one test per
// check. A check is a plain callable run as the test body (gtest assertions work inside).
#pragma once

#include <dopant/runtime.h>

#include <functional>
#include <string>

namespace dopant::conformance {

// The plugin a check runs against, and the runtime that loaded it (it outlives the checks).
struct Target {
  dpt_runtime* runtime;
  const dpt_plugin_info* info;
  const char* id() const { return info->descriptor->id; }
};

void add_check(const Target& target, const std::string& name, std::function<void()> body);

// Registers the checks of every kind and those of the plugin's own kind.
void register_generic_checks(const Target& target);
void register_optimizer_checks(const Target& target);
void register_router_checks(const Target& target);
// Only for routers whose descriptor offers DPT_EXT_ROUTER_REPLAY.
void register_router_replay_checks(const Target& target);
void register_sandbox_checks(const Target& target);
void register_parallel_checks(const Target& target);
void register_checkpoint_checks(const Target& target);
// Only for checkpoint plugins whose descriptor offers DPT_EXT_CHECKPOINT_CONVERT.
void register_checkpoint_convert_checks(const Target& target);

}  // namespace dopant::conformance
