// Where plugin libraries are looked for: folders given by the embedder (--plugin-path),
// then DOPANT_PLUGIN_PATH, then `dopant/plugins` next to libdopant itself — which is the
// install dir (PREFIX/lib/dopant/plugins) in an installed tree and the build tree's plugin
// folder in a build, since the build puts libdopant in BUILD/lib.
#pragma once

#include <string>
#include <vector>

namespace dopant {

// A folder of the search path. `named` folders were given by the embedder or in
// DOPANT_PLUGIN_PATH, so a missing one is a load problem; the install dir may be absent.
struct SearchFolder {
  std::string path;
  bool named;
};

// Folders in search order, without duplicates. `extra` is ':'-separated and may be NULL.
std::vector<SearchFolder> plugin_search_path(const char* extra, bool skip_defaults);

// Plugin library files (*.so) directly inside `folder`, sorted by name. Sets `problem`
// (and returns none) when the folder does not exist or cannot be read.
std::vector<std::string> plugin_files_in(const std::string& folder, std::string* problem);

}  // namespace dopant
