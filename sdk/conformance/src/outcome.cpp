// Error reading, instance ownership and temporary folders for the conformance checks.
#include "outcome.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <string>

namespace dopant::conformance {

Outcome take(dpt_error* error) {
  Outcome outcome;
  if (error == nullptr) return outcome;
  outcome.failed = true;
  outcome.code = dpt_error_get_code(error);
  const char* message = dpt_error_get_message(error);
  outcome.message = message != nullptr ? message : "";
  dpt_error_destroy(error);
  return outcome;
}

std::string ok_or_message(dpt_error* error) {
  const Outcome outcome = take(error);
  if (!outcome.failed) return "";
  return std::string(dpt_code_name(outcome.code)) + ": " + outcome.message;
}

PluginInstance::PluginInstance(const Target& target) {
  const std::string problem =
      ok_or_message(dpt_plugin_instance_create(target.runtime, target.id(), nullptr, &instance_));
  if (!problem.empty()) {
    instance_ = nullptr;
    ADD_FAILURE() << "creating `" << target.id() << "` with its defaults failed: " << problem;
  }
}

PluginInstance::~PluginInstance() { dpt_plugin_instance_destroy(instance_); }

dpt_instance* PluginInstance::handle() const { return dpt_plugin_instance_handle(instance_); }

FreshFolder::FreshFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dopant-check-XXXXXX").string();
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

FreshFolder::~FreshFolder() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace dopant::conformance
