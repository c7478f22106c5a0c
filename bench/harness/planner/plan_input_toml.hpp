// Reads a plan file (TOML) into a checked PlanInput. Every problem is a PlanError whose
// message is one line: "FILE:LINE:COLUMN: `section.key` ...".
#pragma once

#include "plan_input.hpp"

#include <string>
#include <string_view>

namespace dopant::planner {

// Parses and checks `text`; `source` names the file in messages.
PlanInput parse_plan_input(std::string_view text, const std::string& source);

// Reads and parses the file at `path`.
PlanInput load_plan_input(const std::string& path);

}  // namespace dopant::planner
