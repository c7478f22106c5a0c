// Reads the file `dopant run FILE --variant NAME --json OUT` writes into a RunOutput: the
// workload, per metric its unit, direction and the single value of the run, and the
// run's failure when the file has an "error": {"code": ..., "message": ...} member.
#pragma once

#include "ab_data.hpp"

#include <string_view>

namespace dopant::ab {

// Throws std::runtime_error when the text is not such a file, a metric holds other than
// exactly one value, or a value is not a finite number.
RunOutput parse_run_result(std::string_view json_text);

}  // namespace dopant::ab
