// The test catalog: plugins and workloads declared with dpt_param_decl.
#include "fake_catalog.hpp"

#include "error.hpp"

#include <gtest/gtest.h>

namespace dopant::testing {
namespace {

constexpr uint32_t kSize = DPT_PARAM_DECL_SIZE_1_0;

const dpt_param_decl kLr{kSize, "lr", DPT_PARAM_FLOAT, "1e-3", "0", "1", nullptr, 0, "", "step size"};
const dpt_param_decl kWeightDecay{kSize, "weight_decay", DPT_PARAM_FLOAT, "0.01", "0", nullptr,
                                  nullptr, 0, "", "decoupled decay"};
const dpt_param_decl kFused{kSize, "fused", DPT_PARAM_BOOL, "false", nullptr, nullptr, nullptr, 0, "", ""};
const dpt_param_decl* const kAdamw[] = {&kLr, &kWeightDecay, &kFused};

const dpt_param_decl kChunk{kSize, "chunk", DPT_PARAM_SIZE, "64MiB", "1MiB", "4GiB", nullptr, 0, "B",
                            "bytes streamed per chunk"};
const dpt_param_decl kSlots{kSize, "slots", DPT_PARAM_INT, "2", "1", "8", nullptr, 0, "", "device slots"};
const char* const kStateDtypes[] = {"fp32", "bf16"};
const dpt_param_decl kStateDtype{kSize, "state_dtype", DPT_PARAM_ENUM, "fp32", nullptr, nullptr,
                                 kStateDtypes, 2, "", "dtype of the moments"};
const dpt_param_decl* const kOffload[] = {&kLr, &kChunk, &kSlots, &kStateDtype};

const dpt_param_decl kTopK{kSize, "k", DPT_PARAM_INT, "2", "1", "64", nullptr, 0, "", "experts per token"};
const dpt_param_decl* const kTopk[] = {&kTopK};

const dpt_param_decl kParams{kSize, "params", DPT_PARAM_SIZE, "1M", nullptr, nullptr, nullptr, 0, "",
                             "parameter count"};
const char* const kDtypes[] = {"fp32", "bf16", "fp16"};
const dpt_param_decl kDtype{kSize, "dtype", DPT_PARAM_ENUM, "fp32", nullptr, nullptr, kDtypes, 3, "", ""};
const dpt_param_decl kSteps{kSize, "steps", DPT_PARAM_INT, "3", "1", nullptr, nullptr, 0, "", ""};
const dpt_param_decl* const kOptimizerStep[] = {&kParams, &kDtype, &kSteps};

PluginSchema plugin(const char* id, const char* kind, const dpt_param_decl* const* decls,
                    uint32_t count) {
  return {id, kind, parse_param_decls(decls, count, id)};
}

}  // namespace

FakeCatalog::FakeCatalog() {
  plugins_.push_back(plugin("adamw", "dopant.optimizer/1", kAdamw, 3));
  plugins_.push_back(plugin("adamw-chunked-offload", "dopant.optimizer/1", kOffload, 4));
  plugins_.push_back(plugin("topk", "dopant.router/1", kTopk, 1));
  workloads_.push_back({"optimizer-step", parse_param_decls(kOptimizerStep, 3, "optimizer-step"),
                        {"optimizer"}});
  workloads_.push_back({"moe-routing", {}, {}});
}

const PluginSchema* FakeCatalog::find_plugin(std::string_view id) const {
  for (const auto& plugin : plugins_) {
    if (plugin.id == id) return &plugin;
  }
  return nullptr;
}

std::vector<std::string> FakeCatalog::plugin_ids() const {
  std::vector<std::string> ids;
  for (const auto& plugin : plugins_) ids.push_back(plugin.id);
  return ids;
}

const WorkloadSchema* FakeCatalog::find_workload(std::string_view name) const {
  for (const auto& workload : workloads_) {
    if (workload.name == name) return &workload;
  }
  return nullptr;
}

std::vector<std::string> FakeCatalog::workload_names() const {
  std::vector<std::string> names;
  for (const auto& workload : workloads_) names.push_back(workload.name);
  return names;
}

const FakeCatalog& fake_catalog() {
  static const FakeCatalog catalog;
  return catalog;
}

RunConfig parse(std::string_view text) { return parse_run_config(text, "run.toml", fake_catalog()); }

std::string parse_error(std::string_view text) {
  try {
    parse(text);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), DPT_INVALID_ARGUMENT);
    return error.what();
  }
  ADD_FAILURE() << "expected an error for:\n" << text;
  return "";
}

}  // namespace dopant::testing
