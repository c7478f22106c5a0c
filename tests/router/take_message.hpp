// The message of an error returned by libdopant's C API, freeing it ("" for NULL): for
// ASSERT_EQ("", take_message(call)) in the plugin tests of this folder.
#pragma once

#include <dopant/runtime.h>

#include <string>

namespace dopant::router_tests {

inline std::string take_message(dpt_error* error) {
  if (error == nullptr) return "";
  std::string message = dpt_error_get_message(error);
  dpt_error_destroy(error);
  return message;
}

}  // namespace dopant::router_tests
