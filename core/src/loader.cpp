// libltdl-based loading of plugin libraries (see loader.hpp).
#include "loader.hpp"

#include "error.hpp"

#include <dlfcn.h>
#include <ltdl.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <mutex>

namespace dopant {
namespace {

std::mutex& ltdl_lock() {
  static std::mutex lock;
  return lock;
}

// libltdl reports errors through a global string; read it under the lock.
std::string last_ltdl_error() {
  const char* text = lt_dlerror();
  return text != nullptr ? text : "unknown libltdl error";
}

void ensure_ltdl_initialized() {
  static bool initialized = false;
  if (initialized) return;
  if (lt_dlinit() != 0) throw Error(DPT_INTERNAL, "libltdl initialization failed: " + last_ltdl_error());
  initialized = true;
}

// How many runtimes hold a library, with the lock that serializes its init and deinit.
struct LibraryHolds {
  std::mutex lock;
  uint64_t count = 0;
};

LibraryHolds& holds_of(const dpt_library* library) {
  static std::mutex table_lock;
  static std::map<const dpt_library*, std::unique_ptr<LibraryHolds>> table;
  std::lock_guard<std::mutex> guard(table_lock);
  auto& holds = table[library];
  if (!holds) holds = std::make_unique<LibraryHolds>();
  return *holds;  // records are never erased, so the reference stays valid
}

// Why a library failed to open. libltdl says "file not found" for many failures, so the
// reason comes from stat (really absent) or from dlopen's own message (bad ELF, missing
// dependency, ...).
constexpr const char* kFileNotFound = "file not found";

std::string open_failure_reason(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return kFileNotFound;
  if (void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(handle);
    return last_ltdl_error();
  }
  const char* reason = dlerror();
  return reason != nullptr ? reason : last_ltdl_error();
}

}  // namespace

void hold_library(const dpt_library* library, const dpt_library& widened, const dpt_host* host,
                  const std::string& path) {
  LibraryHolds& holds = holds_of(library);
  std::lock_guard<std::mutex> guard(holds.lock);
  if (holds.count == 0 && widened.init != nullptr) throw_if_error(widened.init(host), path + ": init failed");
  ++holds.count;
}

void release_library(const dpt_library* library, const dpt_library& widened, const dpt_host* host) {
  LibraryHolds& holds = holds_of(library);
  std::lock_guard<std::mutex> guard(holds.lock);
  if (--holds.count == 0 && widened.deinit != nullptr) widened.deinit(host);
}

dpt_plugin_entry_fn open_plugin_library(const std::string& path) {
  std::lock_guard<std::mutex> guard(ltdl_lock());
  ensure_ltdl_initialized();

  lt_dladvise advise;
  if (lt_dladvise_init(&advise) != 0) throw Error(DPT_INTERNAL, path + ": " + last_ltdl_error());
  lt_dladvise_local(&advise);
  lt_dladvise_resident(&advise);
  lt_dlhandle handle = lt_dlopenadvise(path.c_str(), advise);
  lt_dladvise_destroy(&advise);
  if (handle == nullptr) {
    const std::string reason = open_failure_reason(path);
    throw Error(reason == kFileNotFound ? DPT_NOT_FOUND : DPT_INVALID_ARGUMENT, path + ": cannot load library: " + reason);
  }
  void* symbol = lt_dlsym(handle, DPT_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    // Resident handles are never closed; the library simply stays mapped and unused.
    throw Error(DPT_INVALID_ARGUMENT, path + ": not a dopant plugin library: no symbol `" DPT_PLUGIN_ENTRY_SYMBOL "`");
  }
  return reinterpret_cast<dpt_plugin_entry_fn>(symbol);
}

}  // namespace dopant
