// Megatron-core parameter names -> TP split and layer/expert numbers (see parameter_names.hpp).
// The splits follow Megatron's layers: ColumnParallelLinear (linear_qkv, linear_fc1, the MLA
// up-projections, output_layer) and VocabParallelEmbedding split their output rows;
// RowParallelLinear (linear_proj, linear_fc2) splits its input columns and keeps its bias
// whole; norms, the router and MLA's down-projections (built "duplicated") are whole.
#include "dopant/megatron_legacy/parameter_names.hpp"

#include <cctype>
#include <string_view>

namespace dopant::megatron_legacy {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// Digits at `at`, up to the end or a '.', as a number; nullopt when there are none.
std::optional<NumberInName> digits_at(const std::string& name, size_t at) {
  NumberInName number{at, 0, 0};
  while (at + number.length < name.size() && std::isdigit(static_cast<unsigned char>(name[at + number.length])) &&
         number.length < 18) {
    number.value = number.value * 10 + static_cast<uint64_t>(name[at + number.length] - '0');
    ++number.length;
  }
  if (number.length == 0) return std::nullopt;
  return number;
}

// `marker` at the start of `name` or after a '.', followed by a number and a '.'.
std::optional<NumberInName> number_after(const std::string& name, std::string_view marker) {
  for (size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1)) {
    if (at != 0 && name[at - 1] != '.') continue;
    const auto number = digits_at(name, at + marker.size());
    if (number && number->at + number->length < name.size() && name[number->at + number->length] == '.') return number;
  }
  return std::nullopt;
}

}  // namespace

TensorSplit tensor_split(const std::string& name, bool gated_linear_unit) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return TensorSplit::unknown;
  std::string_view parameter = std::string_view(name).substr(dot + 1);
  const std::string_view module_path = std::string_view(name).substr(0, dot);
  const std::string_view module = module_path.substr(module_path.rfind('.') + 1);  // npos + 1 == 0
  while (!parameter.empty() && std::isdigit(static_cast<unsigned char>(parameter.back()))) {
    parameter.remove_suffix(1);  // grouped experts: weight0, weight1, ...
  }
  if (parameter == "layer_norm_weight" || parameter == "layer_norm_bias") return TensorSplit::whole;  // fused norm
  if (ends_with(module, "norm")) return TensorSplit::whole;  // input_layernorm, q_layernorm, final_layernorm, ...
  if (module == "router") return TensorSplit::whole;  // weight, expert_bias
  const bool weight = parameter == "weight", bias = parameter == "bias";
  if (!weight && !bias) return TensorSplit::unknown;
  if (module == "linear_fc1") return gated_linear_unit ? TensorSplit::gated_rows : TensorSplit::rows;
  if (module == "linear_qkv" || module == "linear_q_proj" || module == "linear_q_up_proj" ||
      module == "linear_kv_up_proj") {
    return TensorSplit::rows;
  }
  if (module == "linear_proj" || module == "linear_fc2") return weight ? TensorSplit::columns : TensorSplit::whole;
  if (weight && (module == "word_embeddings" || module == "output_layer")) return TensorSplit::rows;
  if (module == "position_embeddings" || module == "linear_q_down_proj" ||
      module == "linear_kv_down_proj") {
    return TensorSplit::whole;
  }
  return TensorSplit::unknown;
}

std::optional<NumberInName> layer_number(const std::string& name) {
  if (auto number = number_after(name, "decoder.layers.")) return number;
  return number_after(name, "encoder.layers.");
}

std::optional<NumberInName> expert_number(const std::string& name) {
  if (auto number = number_after(name, "experts.local_experts.")) return number;
  // experts.linear_fc1.weight12: the number ends the name.
  for (const std::string_view parameter : {".weight", ".bias"}) {
    const size_t at = name.rfind(parameter);
    if (at == std::string::npos || name.find("experts.linear_fc") == std::string::npos) continue;
    const auto number = digits_at(name, at + parameter.size());
    if (number && number->at + number->length == name.size()) return number;
  }
  return std::nullopt;
}

std::string renumbered(const std::string& name, const NumberInName& number, uint64_t value) {
  return name.substr(0, number.at) + std::to_string(value) + name.substr(number.at + number.length);
}

}  // namespace dopant::megatron_legacy
