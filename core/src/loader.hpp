// Opens plugin libraries with libltdl (local + resident advice) and finds their entry
// symbol. Every libltdl call is serialized by one process-wide lock; libraries are never
// closed, as the ABI rules require.
#pragma once

#include <dopant/plugin.h>

#include <string>

namespace dopant {

// Opens `path` and returns its dpt_plugin_entry_v1. Throws Error naming the file when the
// library cannot be opened or has no entry symbol.
dpt_plugin_entry_fn open_plugin_library(const std::string& path);

}  // namespace dopant
