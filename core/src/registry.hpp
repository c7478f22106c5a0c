// The registry of loaded plugin libraries and their plugins. Loading a library is atomic:
// every descriptor, kind table and parameter declaration is checked, `init` runs, and only
// then are its plugins registered; on any error nothing of the library is kept. Destroying
// the registry releases its hold on every library (the last hold runs `deinit`).
#pragma once

#include "config.hpp"
#include "host/host_services.hpp"
#include "kinds.hpp"

#include <dopant/runtime.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dopant {

struct PluginEntry {
  std::unique_ptr<uint64_t[]> descriptor_storage;  // widened copy
  std::unique_ptr<uint64_t[]> table_storage;       // widened copy of the kind table
  const dpt_plugin_descriptor* descriptor = nullptr;
  const void* table = nullptr;
  const KindInfo* kind = nullptr;
  std::string library_path;
  std::string library_id;
  uint32_t library_abi_minor = 0;
  PluginSchema schema;
  dpt_config defaults;
  std::unique_ptr<HostContext> host_context;
  dpt_host host{};
  dpt_plugin_info info{};
};

class Registry {
 public:
  explicit Registry(HostServices& services) : services_(services) {}
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Loads one library. Throws Error naming the file on any problem; the registry is then
  // unchanged. Loading the same file twice is a no-op.
  void load_library(const std::string& path);

  const std::vector<std::unique_ptr<PluginEntry>>& plugins() const { return plugins_; }
  const PluginEntry* find(std::string_view id) const;

 private:
  std::unique_ptr<PluginEntry> check_plugin(const dpt_plugin_descriptor* raw, const std::string& path,
                                            const dpt_library& library) const;

  // A loaded library: its static description, the widened copy the core reads, and the
  // host table its init and deinit receive.
  struct LoadedLibrary {
    const dpt_library* raw = nullptr;
    std::unique_ptr<uint64_t[]> widened;
    std::unique_ptr<HostContext> host_context;
    std::unique_ptr<dpt_host> host;
    bool paired = false;  // minor 3 or later: init and deinit paired across runtimes
  };

  HostServices& services_;
  std::vector<std::unique_ptr<PluginEntry>> plugins_;
  std::vector<LoadedLibrary> libraries_;
  std::set<std::string> loaded_paths_;
};

}  // namespace dopant
