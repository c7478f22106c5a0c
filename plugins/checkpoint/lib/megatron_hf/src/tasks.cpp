// Grouping HF tensors into tasks (see convert.hpp): MLA projections of a layer form one
// item, every other tensor is an item of its own; items, largest first, fill tasks of up to
// block_bytes one after another (next fit), and the tasks are sorted largest first, so the
// longest tasks start first and the small ones even out the workers' ends.
#include "dopant/megatron_hf/convert.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace dopant::megatron_hf {
namespace {

// The item a tensor belongs to: "PREFIX.self_attn.mla" for the MLA projections, else its name.
std::string item_of(const std::string& name) {
  static constexpr std::string_view kMla[] = {"q_a_proj.weight", "q_a_layernorm.weight", "q_b_proj.weight",
                                              "kv_a_proj_with_mqa.weight", "kv_a_layernorm.weight",
                                              "kv_b_proj.weight"};
  const size_t at = name.rfind(".self_attn.");
  if (at == std::string::npos) return name;
  const std::string_view leaf = std::string_view(name).substr(at + 11);
  for (std::string_view mla : kMla) {
    if (leaf == mla) return name.substr(0, at) + ".self_attn.mla";
  }
  return name;
}

bool larger_first(const Task& a, const Task& b, const std::vector<OutputTensor>& plan) {
  if (a.bytes != b.bytes) return a.bytes > b.bytes;
  return plan[a.tensors.front()].name < plan[b.tensors.front()].name;
}

}  // namespace

std::vector<Task> plan_tasks(const std::vector<OutputTensor>& plan, uint64_t block_bytes) {
  std::map<std::string, Task> items;  // the plan is in name order, so each item's tensors are too
  for (size_t i = 0; i < plan.size(); ++i) {
    Task& item = items[item_of(plan[i].name)];
    item.tensors.push_back(i);
    item.bytes += plan[i].bytes;
  }
  std::vector<Task> sorted;
  for (auto& [name, item] : items) sorted.push_back(std::move(item));
  const auto order = [&](const Task& a, const Task& b) { return larger_first(a, b, plan); };
  std::sort(sorted.begin(), sorted.end(), order);

  std::vector<Task> tasks;
  for (Task& item : sorted) {
    if (tasks.empty() || tasks.back().bytes + item.bytes > block_bytes) {
      tasks.push_back(std::move(item));
      continue;
    }
    Task& open = tasks.back();
    open.tensors.insert(open.tensors.end(), item.tensors.begin(), item.tensors.end());
    open.bytes += item.bytes;
  }
  std::stable_sort(tasks.begin(), tasks.end(), order);
  return tasks;
}

}  // namespace dopant::megatron_hf
