// Helpers shared by the checks: reading (and freeing) errors returned through the ABI, an
// instance of the plugin under test created with its declared defaults, and a fresh
// temporary folder.
#pragma once

#include "registry.hpp"

#include <dopant/runtime.h>

#include <filesystem>
#include <string>

namespace dopant::conformance {

// What a fallible call returned; the error itself is already freed.
struct Outcome {
  bool failed = false;
  dpt_code code = DPT_OK;
  std::string message;
};

Outcome take(dpt_error* error);

// "" on success, else "<code name>: <message>" (frees the error). Reads well in
// ASSERT_EQ("", ok_or_message(...)).
std::string ok_or_message(dpt_error* error);

// One instance made through the runtime with the plugin's defaults; records a test failure
// when creation fails (check ok()).
class PluginInstance {
 public:
  explicit PluginInstance(const Target& target);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  bool ok() const { return instance_ != nullptr; }
  dpt_instance* handle() const;
  template <typename Table>
  const Table& table() const {
    return *static_cast<const Table*>(dpt_plugin_instance_table(instance_));
  }

 private:
  dpt_plugin_instance* instance_ = nullptr;
};

// A fresh folder under the temporary directory, removed with its contents at scope exit;
// path() is empty when it could not be made.
class FreshFolder {
 public:
  FreshFolder();
  ~FreshFolder();
  FreshFolder(const FreshFolder&) = delete;
  FreshFolder& operator=(const FreshFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace dopant::conformance
