// Consistency checks of a parsed plan: the GPU grid multiplies out, every split divides
// what it splits, and MoE settings are coherent. The first problem is a located PlanError.
#pragma once

#include "plan_input.hpp"

namespace dopant::planner {

void check_plan_input(const PlanInput& input);

}  // namespace dopant::planner
