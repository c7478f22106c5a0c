// Formats planner input errors on one line, with the file position first.
#include "plan_error.hpp"

#include <dopant/support/text.hpp>

namespace dopant::planner {

void fail_at(const std::string& source, TextPosition position, std::string_view message) {
  std::string text = one_line(source);
  if (position.line != 0) {
    text += ":" + std::to_string(position.line) + ":" + std::to_string(position.column);
  }
  throw PlanError(text + ": " + one_line(message));
}

}  // namespace dopant::planner
