// Creation of core-owned errors and conversion of plugin errors into exceptions.
#include "error.hpp"

namespace dopant {

dpt_error* make_error(dpt_code code, const std::string& message) {
  return new dpt_error{code, message};
}

void throw_if_error(dpt_error* error, const std::string& context) {
  if (error == nullptr) return;
  const dpt_code code = error->code;
  std::string message = context.empty() ? error->message : context + ": " + error->message;
  delete error;
  throw Error(code, message);
}

}  // namespace dopant
