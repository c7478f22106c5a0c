// Shared helpers of the planner tests: example paths, a small dense plan, error capture.
#pragma once

#include "plan_input.hpp"
#include "plan_input_toml.hpp"

#include <stdexcept>
#include <string>

namespace dopant::planner::test {

inline std::string example_path(const std::string& name) {
  return std::string(DOPANT_PLAN_EXAMPLES_DIR) + "/" + name;
}

// A tiny dense model on 8 GPUs; line numbers matter to the error tests.
inline const char* const kSmallPlan =
    "[model]\n"                     // 1
    "layers = 4\n"                  // 2
    "hidden = 64\n"                 // 3
    "heads = 8\n"                   // 4
    "vocab = 128\n"                 // 5
    "ffn = 256\n"                   // 6
    "\n"                            // 7
    "[parallel]\n"                  // 8
    "gpus = 8\n"                    // 9
    "tp = 2\n"                      // 10
    "pp = 2\n"                      // 11
    "dp = 2\n"                      // 12
    "\n"                            // 13
    "[training]\n"                  // 14
    "context = 32\n"                // 15
    "recompute = \"selective\"\n";  // 16

// kSmallPlan with the first occurrence of `from` replaced by `to`.
inline std::string small_plan_with(const std::string& from, const std::string& to) {
  std::string text = kSmallPlan;
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("small plan has no `" + from + "`");
  text.replace(at, from.size(), to);
  return text;
}

// The message of the PlanError that parsing `text` throws, or "" when it parses.
inline std::string plan_error(const std::string& text) {
  try {
    parse_plan_input(text, "plan.toml");
  } catch (const PlanError& error) {
    return error.what();
  }
  return "";
}

}  // namespace dopant::planner::test
