// Writing JSON text: string literals and numbers, for every machine-readable output
// (`dopant run --json`, `dopant plugins list --json`, `dopant plan memory --json`, the A/B
// reports).
#pragma once

#include <string>
#include <string_view>

namespace dopant {

// JSON string literal of `text`, with quotes; control characters escaped.
std::string json_string(std::string_view text);

// The shortest of %.15g / %.17g that reads back as the same double; non-finite values
// become null.
std::string json_number(double value);

}  // namespace dopant
