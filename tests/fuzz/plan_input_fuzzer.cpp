// libFuzzer target for plan files (`dopant plan memory`): the bytes are a plan file, read
// the way every TOML input is (size bound, dotted-key depth, parse) and then strictly into
// a PlanInput and its consistency checks. A rejected file must be a PlanError; an accepted
// one is planned, which may only fail with PlanSizeOverflow, and its plan must hold
// together: one stage per pipeline rank, every layer on exactly one stage, and the offload
// no larger on the device than the baseline plus its two staging slots.
#include "memory_plan.hpp"
#include "plan_input_toml.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace dopant::planner;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "plan_input_fuzzer: %s\n", what.c_str());
  std::abort();
}

void check_plan(const PlanInput& input, const MemoryPlan& plan) {
  if (plan.stages.size() != input.parallel.pp) fail("not one stage per pipeline rank");
  uint64_t layers = 0;
  for (const StagePlan& stage : plan.stages) {
    layers += stage.layout.layers();
    const uint64_t baseline = stage.baseline.total();
    const uint64_t offload = stage.offload.total();
    if (offload - stage.offload.staging > baseline) fail("offload keeps more on the device than the baseline");
    if (baseline > plan.baseline_stage().baseline.total()) fail("worst baseline stage is not the worst");
    if (offload > plan.offload_stage().offload.total()) fail("worst offload stage is not the worst");
  }
  if (layers != input.model.layers) fail("layers placed do not add up to model.layers");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  PlanInput input;
  try {
    input = parse_plan_input(text, "fuzz-plan.toml");
  } catch (const PlanError&) {
    return 0;
  }
  try {
    check_plan(input, plan_memory(input));
  } catch (const PlanSizeOverflow&) {
  }
  return 0;
}
