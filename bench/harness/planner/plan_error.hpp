// The planner's input error: one line, "FILE:LINE:COLUMN: message".
#pragma once

#include "plan_input.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace dopant::planner {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws PlanError located at `position` of `source` (line 0: the file alone).
[[noreturn]] void fail_at(const std::string& source, TextPosition position, std::string_view message);

}  // namespace dopant::planner
