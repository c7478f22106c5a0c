// `dopant plan ...`: the planner's command-line entry, wired into the dopant CLI.
#pragma once

#include <string>
#include <vector>

namespace dopant::planner {

// `args` are the words after `dopant plan`, e.g. {"memory", "FILE", "--json", "OUT"}.
// Prints the plan on stdout. Returns 0 on success, 2 on a usage error, 1 on bad input or
// an unwritable output (the message goes to stderr).
int command_plan(const std::vector<std::string>& args);

}  // namespace dopant::planner
