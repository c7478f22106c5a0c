// Creation of core-owned errors and conversion of plugin errors into exceptions.
#include "error.hpp"

namespace dopant {

dpt_error* make_error(dpt_code code, const std::string& message) {
  const dpt_code known = dpt_code_known_or_internal(code);
  if (known == code) return new dpt_error{code, message};
  return new dpt_error{known, "(error code " + std::to_string(code) + ", unknown to this dopant) " + message};
}

void throw_if_error(dpt_error* error, const std::string& context) {
  if (error == nullptr) return;
  const dpt_code code = error->code;
  std::string message = context.empty() ? error->message : context + ": " + error->message;
  delete error;
  throw Error(code, message);
}

}  // namespace dopant
