// Names of the planner's enumerations, as they are spelled in plan files and reports.
#include "plan_input.hpp"

namespace dopant::planner {

const char* name_of(DataType type) { return type == DataType::Bf16 ? "bf16" : "fp32"; }

const char* name_of(Recompute recompute) {
  switch (recompute) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "?";
}

const char* name_of(AttentionKind kind) { return kind == AttentionKind::Mla ? "mla" : "gqa"; }

}  // namespace dopant::planner
