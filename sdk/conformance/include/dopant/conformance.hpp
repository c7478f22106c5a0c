// dopant conformance kit: GoogleTest checks that a plugin honours the ABI contract of its
// kind. `dopant check PLUGIN_OR_PATH` runs exactly this.
#pragma once

#include <string>

namespace dopant::conformance {

// Runs every check of every plugin named by `plugin_id_or_library_path`: a path to a plugin
// library (containing '/' or ending in ".so") is loaded alone and each plugin in it is
// checked; otherwise the id is looked up among the plugins found on the default search path.
// `argc`/`argv` take GoogleTest flags (--gtest_filter=...). Returns 0 when every check
// passes, 1 when one fails, 2 when the plugin or library cannot be found or loaded.
int run(const std::string& plugin_id_or_library_path, int argc, char** argv);

}  // namespace dopant::conformance
