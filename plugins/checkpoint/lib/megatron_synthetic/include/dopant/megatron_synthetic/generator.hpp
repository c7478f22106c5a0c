// A generated Megatron `torch_dist` checkpoint of a Kimi-K2-shaped MoE model, written in C++
// as PyTorch 1.13's DCP FileSystemWriter and Megatron write it, so benchmarks and A/Bs make
// their own input of any size without Python:
//
//   ROOT/latest_checkpointed_iteration.txt       "10"
//   ROOT/iter_0000010/.metadata                   DCP Metadata, pickled (PyTorch 1.13's classes)
//   ROOT/iter_0000010/__R_0.distcp                one torch.save archive per stored chunk
//   ROOT/iter_0000010/metadata.json, common.pt    Megatron's backend note and saved args
//
// The model: MLA attention, `dense_layers` dense first layers, then MoE layers (router with
// expert bias, one shared expert, `experts` routed experts), per-layer keys (decoder.layers.N.…)
// as Megatron stores unlike layers. Tensor-parallel tensors are stored as two TP chunks
// (halves), experts as `expert_parallel` EP chunks; chunk r of a tensor goes to
// `__r_0.distcp`. Every tensor is bf16 but the router's expert_bias (fp32). The expert ffn
// width is chosen so the checkpoint holds about `target_bytes` of tensors (at least 2: a
// target below what the rest of the model takes gives that smallest model).
//
// Values, deterministic from the seed: element i (row-major in the global tensor) of tensor
// NAME has the bits of `element_bits` below, so a reader can check any byte it reads.
#pragma once

#include <dopant/sdk/checkpoint.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::megatron_synthetic {

struct MoeShape {
  uint32_t layers = 6;
  uint32_t dense_layers = 1;  // the first layers have a dense MLP (Kimi-K2: 1)
  uint32_t hidden = 2048;
  uint32_t experts = 128;
  uint32_t expert_parallel = 8;  // EP chunks of the expert tensors; divides `experts`
  uint32_t vocab = 32000;        // stored padded to a multiple of 128 rows
  uint64_t target_bytes = 4'400'000'000;
  uint64_t seed = 0;
};

// The dimensions derived from a shape (Kimi-K2's ratios, scaled by `hidden`).
struct MoeDims {
  int64_t heads, q_lora, kv_lora, nope, rope, v_dim;  // MLA
  int64_t ffn;                                        // dense layers' ffn width
  int64_t moe_ffn;                                    // each expert's (and the shared expert's) width
  int64_t padded_vocab;
};
// Throws std::invalid_argument naming the field that is out of range.
MoeDims dims_of(const MoeShape& shape);

// The tensors and how they are chunked, as the .metadata records them.
sdk::CheckpointListing plan_listing(const MoeShape& shape);

// The bits of element `index` of a tensor (2 bytes for bf16, 4 for fp32): a value in
// ±[0.5, 1) with random sign and mantissa:
//   key = seed * 0x9E3779B97F4A7C15 ^ fnv1a64(name)                      (tensor_key)
//   x = splitmix64 finalizer of key + (index + 1) * 0x9E3779B97F4A7C15    (Steele et al.)
//   bf16: 0x3F00 | (x & 0x807F)          fp32: 0x3F000000 | (x & 0x807FFFFF)
uint64_t tensor_key(uint64_t seed, const std::string& name);
inline uint64_t element_bits(uint64_t key, uint64_t index, uint32_t element_bytes) {
  uint64_t x = key + (index + 1) * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return element_bytes == 2 ? (0x3F00u | (x & 0x807Fu)) : (0x3F000000u | (x & 0x807FFFFFu));
}

struct Generated {
  std::string root;          // the checkpoint's root folder (as given)
  uint64_t tensor_bytes = 0; // bytes of tensor data (the payload a conversion writes)
  uint64_t file_bytes = 0;   // bytes of every file written
};

// Writes the checkpoint to `root`, which must not exist: all of it, or nothing (it is
// written in a hidden folder beside `root`, renamed into place at the end).
Generated generate(const MoeShape& shape, const std::string& root);

}  // namespace dopant::megatron_synthetic
