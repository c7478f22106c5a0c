// Core-internal errors: a C++ exception carrying an ABI error code, and the concrete
// definition of the opaque dpt_error handed across the ABI.
#pragma once

#include <dopant/base.h>

#include <stdexcept>
#include <string>

struct dpt_error {
  dpt_code code;
  std::string message;
};

namespace dopant {

// Thrown inside the core; converted to dpt_error* at every C entry point.
class Error : public std::runtime_error {
 public:
  Error(dpt_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  dpt_code code() const { return code_; }

 private:
  dpt_code code_;
};

// Allocates a dpt_error owned by whoever receives it. A code this core does not know is
// stored as DPT_INTERNAL, the number kept at the start of the message.
dpt_error* make_error(dpt_code code, const std::string& message);

// Throws Error from a dpt_error returned by a plugin (freeing it); `context` prefixes the
// message ("plugin `adamw`: step"). Does nothing for NULL.
void throw_if_error(dpt_error* error, const std::string& context);

// Runs `body`, turning any exception into a dpt_error*. Used at every C entry point.
template <typename Body>
dpt_error* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return make_error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_error(DPT_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return make_error(DPT_INTERNAL, e.what());
  } catch (...) {
    return make_error(DPT_INTERNAL, "unknown exception");
  }
}

}  // namespace dopant
