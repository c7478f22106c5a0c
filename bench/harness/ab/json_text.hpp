// Writing JSON text: string literals and numbers (non-finite numbers become null).
#pragma once

#include <string>
#include <string_view>

namespace dopant::ab {

std::string json_string(std::string_view text);
std::string json_number(double value);

}  // namespace dopant::ab
