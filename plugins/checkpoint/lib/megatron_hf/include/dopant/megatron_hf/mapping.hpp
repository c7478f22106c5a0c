// Megatron → Hugging Face names and layouts, for Llama, Qwen2, DeepSeek-V3 and Kimi-K2: one
// plan, used by every conversion strategy. Each HF tensor is a box of one Megatron tensor,
// seen through a row-major reshape of it (a "view"), so splitting fused QKV, gate/up,
// experts and stacked layers, and cutting vocab padding, are all the same operation:
//
//   fused QKV [groups * (heads/groups + 2) * head_dim, hidden] viewed as
//     [groups, heads/groups + 2, head_dim, hidden]; q = [:, 0:heads/groups], k = [:, heads/groups],
//     v = [:, heads/groups + 1]
//   gated fc1 [2 * ffn, hidden]: gate = rows [0, ffn), up = rows [ffn, 2 * ffn)
//   experts [E, ...]: expert e = [e]; stacked layers [L, ...]: layer l = [l]
//   embedding / output layer [padded_vocab, hidden]: rows [0, vocab)
#pragma once

#include <dopant/sdk/checkpoint.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::megatron_hf {

enum class Model { kLlama, kQwen2, kDeepSeekV3, kKimiK2 };

// `llama`, `qwen2`, `deepseek-v3`, `kimi-k2`; throws std::invalid_argument otherwise.
Model parse_model(const std::string& name);

struct ModelArgs {
  Model model = Model::kLlama;
  int64_t heads = 0;         // attention heads (needed where QKV is fused: Llama, Qwen2)
  int64_t query_groups = 0;  // key/value heads (GQA groups)
  int64_t vocab_size = 0;    // real vocabulary; the stored rows past it are padding
};

// `flags` with each hyperparameter the user left 0 taken from the checkpoint's saved Megatron
// args, where its listing's metadata records them (`args.NAME`, as the legacy reader gives
// them): heads = args.num_attention_heads; query_groups = args.num_query_groups, or heads
// when args.group_query_attention is False; vocab_size = args.vocab_size (the real
// vocabulary), else args.padded_vocab_size (the padding rows are then kept). Flags win.
// Throws sdk::Error naming the arg that is recorded but not a positive integer.
ModelArgs with_checkpoint_args(ModelArgs flags, const sdk::Metadata& metadata);

// One HF tensor: the box [begin, begin + size) of source tensor `source` viewed as `view`
// (a shape with the same element count as the source), in row-major order, as `shape`.
struct OutputTensor {
  std::string name;
  uint64_t source = 0;  // index into the listing's tensors
  DLDataType dtype{};
  std::vector<int64_t> shape;
  std::vector<int64_t> view, begin, size;
  uint64_t bytes = 0;
};

// The HF tensors of a Megatron checkpoint, in name order. Throws sdk::Error naming the
// Megatron tensor for a name with no mapping, a shape that disagrees with the model args,
// and an HF name that two Megatron tensors would both give (a duplicate). Optimizer state,
// RNG state and transformer engine `_extra_state` entries are not model weights and are
// skipped.
std::vector<OutputTensor> plan_hf(const sdk::CheckpointListing& listing, const ModelArgs& args);

}  // namespace dopant::megatron_hf
