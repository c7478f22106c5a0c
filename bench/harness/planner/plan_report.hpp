// Human and machine output of a memory plan: a per-component table (GB per GPU, baseline
// vs chunked offload, and their ratio) and a JSON document with every figure in bytes.
#pragma once

#include "memory_plan.hpp"
#include "plan_input.hpp"

#include <string>

namespace dopant::planner {

std::string format_memory_table(const PlanInput& input, const MemoryPlan& plan);

std::string format_memory_json(const PlanInput& input, const MemoryPlan& plan);

}  // namespace dopant::planner
