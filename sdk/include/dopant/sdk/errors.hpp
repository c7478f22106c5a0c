// dopant SDK — errors: an exception carrying a dpt_code, the guard that turns any exception
// into an error created by the host (no exception ever crosses the ABI), and check(), which
// turns an error the host returned into an exception (freeing the error).
#pragma once

#include <dopant/host.h>

#include <new>
#include <stdexcept>
#include <string>

namespace dopant::sdk {

// Thrown by plugin code to fail the current ABI call with `code`.
class Error : public std::runtime_error {
 public:
  Error(dpt_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  dpt_code code() const noexcept { return code_; }

 private:
  dpt_code code_;
};

// Throws Error(code, message): a short form for argument checks.
[[noreturn]] inline void fail(dpt_code code, const std::string& message) {
  throw Error(code, message);
}

// Throws Error(DPT_INVALID_ARGUMENT, message) unless `condition` holds. The literal form
// builds no string unless it fails; on hot paths prefer it (or `if (!ok) fail(...)`) to a
// message assembled before the test.
inline void require(bool condition, const char* message) {
  if (!condition) fail(DPT_INVALID_ARGUMENT, message);
}
inline void require(bool condition, const std::string& message) {
  if (!condition) fail(DPT_INVALID_ARGUMENT, message);
}

// Does nothing for NULL; otherwise frees `error` through the host and throws an Error with
// its code and message. A code this SDK does not know (from a newer core) reads as
// DPT_INTERNAL.
inline void check(const dpt_host* host, dpt_error* error) {
  if (error == nullptr) return;
  const dpt_code code = dpt_code_known_or_internal(host->error_code(host, error));
  std::string message = host->error_message(host, error);
  host->error_free(host, error);
  throw Error(code, message);
}

// Runs `body` and returns NULL, or the host-created error for whatever it threw:
// Error keeps its code, std::bad_alloc becomes DPT_OUT_OF_MEMORY, any other exception
// DPT_INTERNAL. `host` must be non-NULL.
template <typename Body>
dpt_error* guard(const dpt_host* host, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return host->error(host, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return host->error(host, DPT_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return host->error(host, DPT_INTERNAL, e.what());
  } catch (...) {
    return host->error(host, DPT_INTERNAL, "unknown exception");
  }
}

// For slots that return nothing (destroy): runs `body` and logs whatever
// it threw at error level instead of returning it.
template <typename Body>
void guard_and_log(const dpt_host* host, const char* slot, Body&& body) noexcept {
  dpt_error* error = guard(host, static_cast<Body&&>(body));
  if (error == nullptr) return;
  const std::string line = std::string(slot) + ": " + host->error_message(host, error);
  host->log(host, DPT_LOG_ERROR, line.c_str());
  host->error_free(host, error);
}

}  // namespace dopant::sdk
