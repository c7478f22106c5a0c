// Turning a dpt_error* from libdopant's C API into a C++ exception, for the C++ users of
// that API (the harness and the CLI). Header-only, so that libdopant, which links this
// library too, never depends on its own exports.
#pragma once

#include <dopant/runtime.h>

#include <stdexcept>
#include <string>

namespace dopant {

// Throws std::runtime_error "CONTEXT: MESSAGE [CODE NAME]" (no "CONTEXT: " when empty),
// freeing the error, when `error` is not NULL.
inline void throw_if_error(dpt_error* error, const std::string& context = "") {
  if (error == nullptr) return;
  const std::string message = dpt_error_get_message(error);
  const dpt_code code = dpt_error_get_code(error);
  dpt_error_destroy(error);
  throw std::runtime_error((context.empty() ? "" : context + ": ") + message + " [" + dpt_code_name(code) + "]");
}

}  // namespace dopant
