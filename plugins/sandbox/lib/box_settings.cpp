// Box settings: read from a plugin's config, and passed to the worker as arguments.
#include "box_settings.hpp"

#include <cstdlib>
#include <sstream>

namespace dopant::sandbox {

BoxSettings read_box_settings(const sdk::Config& config) {
  BoxSettings settings;
  std::stringstream binds(config.get_string("binds"));
  std::string path;
  while (std::getline(binds, path, ',')) {
    if (path.empty()) continue;
    sdk::require(path[0] == '/' && path.find("..") == std::string::npos,
                 "parameter `binds`: `" + path + "` is not an absolute path without `..`");
    settings.binds.push_back(path);
  }
  settings.workspace_bytes = config.get_size("workspace_size");
  settings.memory_bytes = config.get_size("memory");
  settings.cpu_seconds = static_cast<uint64_t>(config.get_int("cpu_seconds"));
  settings.file_bytes = config.get_size("file_size");
  settings.open_files = static_cast<uint64_t>(config.get_int("open_files"));
  settings.processes = static_cast<uint64_t>(config.get_int("processes"));
  settings.output_cap = config.get_size("output_cap");
  settings.timeout_ms = static_cast<uint64_t>(config.get_int("timeout_ms"));
  return settings;
}

namespace {
// The numeric settings in argument order.
uint64_t* numbers(BoxSettings& s, size_t i) {
  uint64_t* all[] = {&s.workspace_bytes, &s.memory_bytes, &s.cpu_seconds, &s.file_bytes,
                     &s.open_files,      &s.processes,    &s.output_cap,  &s.timeout_ms};
  return i < sizeof all / sizeof all[0] ? all[i] : nullptr;
}
}  // namespace

std::vector<std::string> settings_to_args(const BoxSettings& settings) {
  BoxSettings copy = settings;
  std::vector<std::string> args = {settings.runtime == Runtime::runsc ? "runsc" : "native"};
  for (size_t i = 0; numbers(copy, i) != nullptr; ++i) args.push_back(std::to_string(*numbers(copy, i)));
  for (const std::string& bind : settings.binds) args.push_back(bind);
  return args;
}

bool settings_from_args(int argc, char** argv, BoxSettings& settings) {
  if (argc < 1) return false;
  const std::string runtime = argv[0];
  if (runtime != "native" && runtime != "runsc") return false;
  settings.runtime = runtime == "runsc" ? Runtime::runsc : Runtime::native;
  int next = 1;
  for (size_t i = 0; numbers(settings, i) != nullptr; ++i, ++next) {
    if (next >= argc) return false;
    char* end = nullptr;
    *numbers(settings, i) = std::strtoull(argv[next], &end, 10);
    if (end == argv[next] || *end != '\0') return false;
  }
  for (; next < argc; ++next) settings.binds.emplace_back(argv[next]);
  return true;
}

}  // namespace dopant::sandbox
