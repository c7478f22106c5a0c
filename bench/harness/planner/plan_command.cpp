// `dopant plan memory FILE [--json OUT]`: reads a plan file and prints the per-GPU peak
// memory of the baseline and of the chunked optimizer offload.
#include "plan_command.hpp"

#include "memory_plan.hpp"
#include "plan_error.hpp"
#include "plan_input_toml.hpp"
#include "plan_report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

namespace dopant::planner {
namespace {

constexpr const char* kUsage =
    "usage: dopant plan memory FILE [--json OUT]\n"
    "  per-GPU peak memory of a training configuration, baseline vs chunked optimizer offload\n"
    "  (formulas and plan file keys: docs/memory.md)\n";

struct MemoryArgs {
  std::string file;
  std::optional<std::string> json;
};

// Parses the words after `memory`; nullopt (with a message on stderr) on a usage error.
std::optional<MemoryArgs> parse_memory_args(const std::vector<std::string>& args) {
  MemoryArgs parsed;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") {
      if (i + 1 == args.size()) {
        std::fprintf(stderr, "dopant plan: --json needs an output path\n%s", kUsage);
        return std::nullopt;
      }
      parsed.json = args[++i];
    } else if (args[i].starts_with("-") || !parsed.file.empty()) {
      std::fprintf(stderr, "dopant plan: unexpected argument `%s`\n%s", args[i].c_str(), kUsage);
      return std::nullopt;
    } else {
      parsed.file = args[i];
    }
  }
  if (parsed.file.empty()) {
    std::fprintf(stderr, "dopant plan: memory needs a plan FILE\n%s", kUsage);
    return std::nullopt;
  }
  return parsed;
}

int run_memory(const MemoryArgs& args) {
  try {
    const PlanInput input = load_plan_input(args.file);
    const MemoryPlan plan = plan_memory(input);
    std::fputs(format_memory_table(input, plan).c_str(), stdout);
    if (args.json) {
      std::ofstream out(*args.json, std::ios::binary);
      out << format_memory_json(input, plan);
      out.close();
      if (!out) {
        std::fprintf(stderr, "dopant plan: cannot write %s\n", args.json->c_str());
        return 1;
      }
    }
    return 0;
  } catch (const PlanError& error) {
    std::fprintf(stderr, "dopant plan: %s\n", error.what());
    return 1;
  }
}

}  // namespace

int command_plan(const std::vector<std::string>& args) {
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end();
  if (help || (!args.empty() && args[0] == "help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.empty() || args[0] != "memory") {
    std::fprintf(stderr, "dopant plan: %s\n%s",
                 args.empty() ? "missing subcommand" : ("unknown subcommand `" + args[0] + "`").c_str(),
                 kUsage);
    return 2;
  }
  const auto parsed = parse_memory_args(args);
  if (!parsed) return 2;
  return run_memory(*parsed);
}

}  // namespace dopant::planner
