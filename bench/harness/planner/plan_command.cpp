// The plan's text table and JSON, and `dopant plan` itself.

#include "plan_command.hpp"

#include "plan_input_toml.hpp"

#include <dopant/support/json_text.hpp>
#include <dopant/support/output_files.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace dopant::planner {

// Text table and JSON for `dopant plan memory`.

namespace {

constexpr double kGB = 1e9;
constexpr double kMiB = 1024.0 * 1024.0;

template <typename... Values>
std::string printf_string(const char* format, Values... values) {
  char text[256];
  std::snprintf(text, sizeof text, format, values...);
  return text;
}

std::string gb(uint64_t bytes) { return printf_string("%.2f", static_cast<double>(bytes) / kGB); }

std::string billions(uint64_t count) { return printf_string("%.2fB", static_cast<double>(count) / 1e9); }

std::string ratio(uint64_t offload, uint64_t baseline) {
  if (baseline == 0) return "-";
  return printf_string("%.3f", static_cast<double>(offload) / static_cast<double>(baseline));
}

std::string number(uint64_t value) { return std::to_string(value); }

std::vector<std::pair<const char*, uint64_t>> components(const MemoryBreakdown& m) {
  return {
      {"weights", m.weights},         {"grads", m.grads},     {"master", m.master}, {"moments", m.moments},
      {"activations", m.activations}, {"staging", m.staging}, {"total", m.total()}};
}

std::string row(const std::string& name, const std::string& baseline, const std::string& offload,
                const std::string& last = "") {
  std::string text =
      printf_string("  %-26s %12s %12s %18s", name.c_str(), baseline.c_str(), offload.c_str(), last.c_str());
  text.erase(text.find_last_not_of(' ') + 1);
  return text + "\n";
}

std::string fit_text(uint64_t total, uint64_t capacity) {
  if (total <= capacity) return "fits (" + gb(capacity - total) + " GB free)";
  return "exceeds it by " + gb(total - capacity) + " GB";
}

std::string header(const PlanInput& input, const MemoryPlan& plan) {
  const Parallelism& p = input.parallel;
  const Training& t = input.training;
  std::string text = input.model.name + ": " + billions(plan.params.total()) + " parameters (" +
                     billions(plan.params.activated()) + " activated) on " + number(p.gpus) + " GPUs\n";
  text += "  layout: tp " + number(p.tp) + ", pp " + number(p.pp) + ", dp " + number(p.dp) + ", cp " +
          number(p.cp) + ", ep " + number(p.ep) + ", expert_tp " + number(p.expert_tp) + " (expert_dp " +
          number(p.expert_dp()) + "), virtual stages " + number(p.virtual_stages) + ", sequence parallel " +
          (p.sequence_parallel ? "on" : "off") + "\n";
  text += "  training: micro-batch " + number(t.micro_batch) + " x " + number(t.context) + " tokens, " +
          name_of(t.precision) + " params, " + name_of(t.grad_dtype) + " grads, " + name_of(t.recompute) +
          " recompute, " + (t.flash_attention ? "flash attention, " : "no flash attention, ") +
          (t.distributed_optimizer ? "distributed optimizer" : "replicated optimizer") + "\n";
  text += "  offload: " + number(kOffloadSlots) + " slots x " +
          printf_string("%.6g", static_cast<double>(input.offload.chunk_bytes) / kMiB) + " MiB chunks\n\n";
  return text;
}

// A JSON object built field by field, in order.
class JsonObject {
 public:
  JsonObject& add(const char* name, uint64_t value) { return raw(name, number(value)); }
  JsonObject& flag(const char* name, bool value) { return raw(name, value ? "true" : "false"); }
  JsonObject& raw(const char* name, const std::string& json) {
    body_ += (body_.empty() ? "" : ", ") + json_string(name) + ": " + json;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

std::string breakdown_json(const MemoryBreakdown& m) {
  JsonObject object;
  for (const auto& [name, bytes] : components(m)) object.add(name, bytes);
  return object.str();
}

std::string stage_json(const StagePlan& s) {
  const StageActivations& a = s.activations;
  JsonObject activations;
  activations.add("per_microbatch", a.per_microbatch)
      .add("chunks_in_flight", a.chunks_in_flight)
      .add("stored", a.stored)
      .add("recompute_working_set", a.recompute_working_set)
      .add("output_head", a.output_head);
  JsonObject stage;
  stage.add("index", s.layout.index)
      .add("dense_layers", s.layout.dense_layers)
      .add("moe_layers", s.layout.moe_layers)
      .flag("embedding", s.layout.has_embedding)
      .flag("output_head", s.layout.has_output_head)
      .add("non_expert_params", s.params.non_expert)
      .add("expert_params", s.params.expert)
      .raw("activations", activations.str())
      .raw("baseline", breakdown_json(s.baseline))
      .raw("offload", breakdown_json(s.offload))
      .add("offload_host_bytes", s.offload_host_bytes);
  return stage.str();
}

}  // namespace

std::string format_memory_table(const PlanInput& input, const MemoryPlan& plan) {
  const StagePlan& base = plan.baseline_stage();
  const StagePlan& off = plan.offload_stage();
  std::string text = header(input, plan);
  text += row("per GPU, GB (1e9 bytes)", "baseline", "offload", "offload/baseline");
  const auto base_rows = components(base.baseline);
  const auto off_rows = components(off.offload);
  for (std::size_t i = 0; i < base_rows.size(); ++i) {
    text += row(base_rows[i].first, gb(base_rows[i].second), gb(off_rows[i].second),
                ratio(off_rows[i].second, base_rows[i].second));
  }
  text += row("worst stage (of " + number(plan.stages.size()) + ")", number(base.layout.index),
              number(off.layout.index));
  text += row("parameters on that GPU", billions(base.params.total()), billions(off.params.total()));
  text += row("host (pinned) state, GB", "-", gb(off.offload_host_bytes));
  if (input.device.memory_bytes) {
    const uint64_t capacity = *input.device.memory_bytes;
    const std::string name = input.device.name.empty() ? "device" : input.device.name;
    text += "  " + name + " (" + gb(capacity) + " GB): baseline " +
            fit_text(base.baseline.total(), capacity) + "; offload " +
            fit_text(off.offload.total(), capacity) + "\n";
  }
  return text;
}

std::string format_memory_json(const PlanInput& input, const MemoryPlan& plan) {
  const Parallelism& p = input.parallel;
  const StagePlan& base = plan.baseline_stage();
  const StagePlan& off = plan.offload_stage();
  JsonObject params;
  params.add("total", plan.params.total())
      .add("activated", plan.params.activated())
      .add("embedding", plan.params.embedding)
      .add("output_head", plan.params.output_head)
      .add("dense_layer", plan.params.dense_layer.total())
      .add("moe_layer", plan.params.moe_layer.total())
      .add("dense_layers", plan.params.dense_layers)
      .add("moe_layers", plan.params.moe_layers);
  JsonObject parallel;
  parallel.add("gpus", p.gpus).add("tp", p.tp).add("pp", p.pp).add("dp", p.dp).add("cp", p.cp);
  parallel.add("ep", p.ep).add("expert_tp", p.expert_tp).add("expert_dp", p.expert_dp());
  parallel.add("virtual_stages", p.virtual_stages).flag("sequence_parallel", p.sequence_parallel);
  JsonObject baseline;
  baseline.add("stage", base.layout.index).raw("bytes", breakdown_json(base.baseline));
  JsonObject offload;
  offload.add("stage", off.layout.index)
      .add("chunk_bytes", input.offload.chunk_bytes)
      .add("slots", kOffloadSlots)
      .add("host_bytes", off.offload_host_bytes)
      .raw("bytes", breakdown_json(off.offload));
  const double total_ratio =
      static_cast<double>(off.offload.total()) / static_cast<double>(base.baseline.total());

  std::string stages;
  for (const StagePlan& stage : plan.stages)
    stages += (stages.empty() ? "\n    " : ",\n    ") + stage_json(stage);
  return "{\n  " + json_string("source") + ": " + json_string(input.source) + ",\n  " +
         json_string("model") + ": " + json_string(input.model.name) +
         ",\n  \"parameters\": " + params.str() + ",\n  \"parallel\": " + parallel.str() +
         ",\n  \"baseline\": " + baseline.str() + ",\n  \"offload\": " + offload.str() +
         ",\n  \"ratio\": " + json_number(total_ratio) + ",\n  \"stages\": [" + stages + "\n  ]\n}\n";
}

// `dopant plan memory FILE [--json OUT]`: reads a plan file and prints the per-GPU peak
// memory of the baseline and of the chunked optimizer offload.

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
      if (parsed.json) {
        std::fprintf(stderr, "dopant plan: --json given twice; give it once\n%s", kUsage);
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
    if (args.json) check_outputs({{"--json", *args.json, ""}}, {args.file});
    const PlanInput input = load_plan_input(args.file);
    std::string table, json;
    try {
      const MemoryPlan plan = plan_memory(input);
      table = format_memory_table(input, plan);
      if (args.json) json = format_memory_json(input, plan);
    } catch (const PlanSizeOverflow&) {
      fail_too_large(input);
    }
    std::fputs(table.c_str(), stdout);
    if (args.json) write_outputs({{"--json", *args.json, json}}, {args.file});
    return 0;
  } catch (const PlanError& error) {
    std::fprintf(stderr, "dopant plan: %s\n", error.what());
    return 1;
  } catch (const OutputError& error) {
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
