// dopant SDK — plugin descriptors and the library entry point.
//
//   constexpr dpt_plugin_descriptor kLion = sdk::describe<sdk::OptimizerAdapter<Lion>>(
//       "lion", "1.0.0", "Lion optimizer", sdk::param_list<kLionParams>);
//   DOPANT_SDK_LIBRARY("dopant-lion", "1.0.0", &kLion)
//
// A descriptor's get_extension returns the adapter's kind table for the kind id and asks
// the optional `Extra` lookup for any other id (optional capabilities of the plugin).
#pragma once

#include <dopant/plugin.h>

#include "params.hpp"

#include <cstdint>
#include <cstring>

namespace dopant::sdk {

using ExtensionLookup = const void* (*)(const char* id);

template <typename Adapter, ExtensionLookup Extra = nullptr>
const void* find_extension(const char* id) noexcept {
  if (id == nullptr) return nullptr;
  if (std::strcmp(id, Adapter::kind) == 0) return &Adapter::table;
  if constexpr (Extra != nullptr) return Extra(id);
  return nullptr;
}

// Descriptor of one plugin implemented by the adapter (OptimizerAdapter<T>, ...).
template <typename Adapter, ExtensionLookup Extra = nullptr>
constexpr dpt_plugin_descriptor describe(const char* id, const char* version,
                                         const char* description, ParamSpan params = {}) {
  return dpt_plugin_descriptor{DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, id, Adapter::kind, version,
                               description, params.decls, params.count,
                               &find_extension<Adapter, Extra>};
}

// The library record for a static array of descriptor pointers, stamped with the ABI
// version these headers define. `init` and `deinit` are paired by the core across the
// runtimes of the process (see dpt_library).
template <std::size_t N>
constexpr dpt_library make_library(const char* id, const char* version,
                                   const dpt_plugin_descriptor* const (&plugins)[N],
                                   dpt_error* (*init)(const dpt_host*) = nullptr,
                                   void (*deinit)(const dpt_host*) = nullptr) {
  return dpt_library{DPT_LIBRARY_SIZE_1_3, DPT_ABI_MAJOR, DPT_ABI_MINOR, id, version, init,
                     plugins, static_cast<uint32_t>(N), deinit};
}

}  // namespace dopant::sdk

// Defines the library's one exported symbol, dpt_plugin_entry_v1, listing the plugins
// given as addresses of constexpr descriptors. Use once per library, at namespace scope.
#define DOPANT_SDK_LIBRARY(LIBRARY_ID, LIBRARY_VERSION, ...)                             \
  DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) {                              \
    static constexpr const dpt_plugin_descriptor* dopant_sdk_plugins[] = {__VA_ARGS__};  \
    static constexpr dpt_library dopant_sdk_library =                                    \
        ::dopant::sdk::make_library(LIBRARY_ID, LIBRARY_VERSION, dopant_sdk_plugins);    \
    return &dopant_sdk_library;                                                          \
  }
