// load_run_config: reads a run file from disk, then validates it with parse_run_config.
#include "config.hpp"
#include "error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace dopant {
namespace {

// The whole file, or an Error(DPT_NOT_FOUND) naming it with the system's reason.
std::string read_file(const std::string& path) {
  const auto fail = [&](int error_number) {
    return Error(DPT_NOT_FOUND, path + ": cannot read file: " + std::strerror(error_number));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw fail(errno);
  std::string text;
  char buffer[1 << 16];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, count);
  if (std::ferror(file.get())) throw fail(errno);
  return text;
}

}  // namespace

RunConfig load_run_config(const std::string& path, const SchemaCatalog& catalog) {
  return parse_run_config(read_file(path), path, catalog);
}

}  // namespace dopant
