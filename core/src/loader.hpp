// Opens plugin libraries with libltdl (local + resident advice) and finds their entry
// symbol, and pairs the init and deinit of libraries across the runtimes of the process.
// Every libltdl call is serialized by one process-wide lock; libraries are never closed,
// as the ABI rules require.
#pragma once

#include <dopant/plugin.h>

#include <string>

namespace dopant {

// Opens `path` and returns its dpt_plugin_entry_v1. Throws Error naming the file when the
// library cannot be opened or has no entry symbol.
dpt_plugin_entry_fn open_plugin_library(const std::string& path);

// One runtime's hold on a library of minor 3 or later (see dpt_library in plugin.h): the
// first hold in the process runs `init`, the last one released runs `deinit`. Calls for one
// library are serialized by a lock of that library, so runtimes on several threads may
// take and release holds at once. `library` is the library's static description, which
// identifies it for the life of the process.
// Throws Error naming `path` when init fails; no hold is taken then.
void hold_library(const dpt_library* library, const dpt_library& widened, const dpt_host* host,
                  const std::string& path);
void release_library(const dpt_library* library, const dpt_library& widened, const dpt_host* host);

}  // namespace dopant
