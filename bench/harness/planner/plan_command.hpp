// `dopant plan memory FILE [--json OUT]`: the text table and JSON of a plan, and the
// command-line entry wired into the dopant CLI.
#pragma once

#include "memory_plan.hpp"
#include "plan_input.hpp"

#include <string>
#include <vector>

namespace dopant::planner {

// Human and machine output of a memory plan: a per-component table (GB per GPU, baseline
// vs chunked offload, and their ratio) and a JSON document with every figure in bytes.

std::string format_memory_table(const PlanInput& input, const MemoryPlan& plan);

std::string format_memory_json(const PlanInput& input, const MemoryPlan& plan);

// `dopant plan ...`: the planner's command-line entry, wired into the dopant CLI.

// `args` are the words after `dopant plan`, e.g. {"memory", "FILE", "--json", "OUT"}.
// Prints the plan on stdout. Returns 0 on success, 2 on a usage error, 1 on bad input or
// an unwritable output (the message goes to stderr).
int command_plan(const std::vector<std::string>& args);

}  // namespace dopant::planner
