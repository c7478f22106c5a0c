// What a Megatron-core parameter's name says about how it is stored across ranks: which
// axis tensor parallelism splits it along (or whether every rank holds it whole), and the
// local layer and expert numbers a pipeline stage or expert rank gives it, renumbered to
// global ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dopant::megatron_legacy {

// How tensor parallelism stores a parameter.
enum class TensorSplit {
  whole,        // every TP rank holds it whole: norms, row-parallel biases, the router
  rows,         // split along axis 0: column-parallel weights and biases, embeddings, output layer
  columns,      // split along axis 1: row-parallel weights (linear_proj, linear_fc2)
  gated_rows,   // a gated linear_fc1, [gate; up]: each rank holds [gate_r; up_r]
  unknown,      // a name this reader does not know
};
TensorSplit tensor_split(const std::string& name, bool gated_linear_unit);

// A number inside a name (a layer's or an expert's): where its digits are and their value.
struct NumberInName {
  size_t at = 0, length = 0;
  uint64_t value = 0;
};
// The layer number of `decoder.layers.N.` (or the older `encoder.layers.N.`).
std::optional<NumberInName> layer_number(const std::string& name);
// The expert number of `experts.local_experts.N.` (SequentialMLP) or of
// `experts.linear_fcK.weightN` / `.biasN` (TEGroupedMLP).
std::optional<NumberInName> expert_number(const std::string& name);
// `name` with `number`'s digits replaced by `value`.
std::string renumbered(const std::string& name, const NumberInName& number, uint64_t value);

}  // namespace dopant::megatron_legacy
