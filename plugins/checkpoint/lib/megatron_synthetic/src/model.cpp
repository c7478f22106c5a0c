// The generated model's dimensions, tensors, chunks and values (see generator.hpp).
#include "dopant/megatron_synthetic/generator.hpp"

#include <dopant/sdk/tensors.hpp>

#include <algorithm>
#include <stdexcept>

namespace dopant::megatron_synthetic {
namespace {

using Tensor = sdk::CheckpointListing::Tensor;
using Chunk = sdk::CheckpointListing::Chunk;

// [0, extent) cut into `parts` boxes along one axis: cut i at extent * i / parts.
std::vector<int64_t> cuts(int64_t extent, int64_t parts) {
  std::vector<int64_t> at;
  for (int64_t i = 0; i <= parts; ++i) at.push_back(extent * i / parts);
  return at;
}

std::string distcp_file(int64_t rank) { return "__" + std::to_string(rank) + "_0.distcp"; }

// A tensor stored whole (one chunk, in __0_0.distcp) or cut along `axis` into `parts`
// chunks, chunk r in __r_0.distcp (a TP rank's or an EP rank's part).
Tensor tensor(std::string name, std::vector<int64_t> shape, int axis = -1, int64_t parts = 1,
              DLDataType dtype = sdk::kBFloat16) {
  Tensor t{std::move(name), dtype, shape, {}};
  if (axis < 0) parts = 1;
  const std::vector<int64_t> at = cuts(axis < 0 ? 1 : shape[static_cast<size_t>(axis)], parts);
  for (int64_t r = 0; r < parts; ++r) {
    Chunk chunk;
    chunk.offsets.assign(shape.size(), 0);
    chunk.sizes = shape;
    if (axis >= 0) {
      chunk.offsets[static_cast<size_t>(axis)] = at[static_cast<size_t>(r)];
      chunk.sizes[static_cast<size_t>(axis)] = at[static_cast<size_t>(r) + 1] - at[static_cast<size_t>(r)];
    }
    chunk.file = distcp_file(r);
    t.chunks.push_back(std::move(chunk));
  }
  return t;
}

constexpr int64_t kTp = 2;  // tensor-parallel ranks of the column- and row-parallel tensors

// Every tensor but the experts' and the shared expert's, in bytes; and those per unit of
// moe_ffn, so that the width can be solved for the target size.
uint64_t bytes_of(const std::vector<Tensor>& tensors) {
  uint64_t total = 0;
  for (const Tensor& t : tensors) {
    uint64_t elements = 1;
    for (const int64_t extent : t.shape) elements *= static_cast<uint64_t>(extent);
    total += elements * sdk::element_bytes(t.dtype);
  }
  return total;
}

std::vector<Tensor> tensors_of(const MoeShape& s, const MoeDims& d) {
  const int64_t h = s.hidden, e = s.experts, f = d.moe_ffn;
  std::vector<Tensor> out;
  out.push_back(tensor("embedding.word_embeddings.weight", {d.padded_vocab, h}, 0, kTp));
  for (uint32_t layer = 0; layer < s.layers; ++layer) {
    const std::string p = "decoder.layers." + std::to_string(layer) + ".";
    out.push_back(tensor(p + "input_layernorm.weight", {h}));
    out.push_back(tensor(p + "self_attention.linear_q_down_proj.weight", {d.q_lora, h}));
    out.push_back(tensor(p + "self_attention.linear_q_up_proj.layer_norm_weight", {d.q_lora}));
    out.push_back(tensor(p + "self_attention.linear_q_up_proj.weight", {d.heads * (d.nope + d.rope), d.q_lora}, 0, kTp));
    out.push_back(tensor(p + "self_attention.linear_kv_down_proj.weight", {d.kv_lora + d.rope, h}));
    out.push_back(tensor(p + "self_attention.linear_kv_up_proj.layer_norm_weight", {d.kv_lora}));
    out.push_back(tensor(p + "self_attention.linear_kv_up_proj.weight", {d.heads * (d.nope + d.v_dim), d.kv_lora}, 0, kTp));
    out.push_back(tensor(p + "self_attention.linear_proj.weight", {h, d.heads * d.v_dim}, 1, kTp));
    if (layer < s.dense_layers) {
      out.push_back(tensor(p + "mlp.linear_fc1.layer_norm_weight", {h}));
      out.push_back(tensor(p + "mlp.linear_fc1.weight", {2 * d.ffn, h}, 0, kTp));
      out.push_back(tensor(p + "mlp.linear_fc2.weight", {h, d.ffn}, 1, kTp));
      continue;
    }
    out.push_back(tensor(p + "pre_mlp_layernorm.weight", {h}));
    out.push_back(tensor(p + "mlp.router.weight", {e, h}));
    out.push_back(tensor(p + "mlp.router.expert_bias", {e}, -1, 1, sdk::kFloat32));
    out.push_back(tensor(p + "mlp.shared_experts.linear_fc1.weight", {2 * f, h}, 0, kTp));
    out.push_back(tensor(p + "mlp.shared_experts.linear_fc2.weight", {h, f}, 1, kTp));
    out.push_back(tensor(p + "mlp.experts.experts.linear_fc1.weight", {e, 2 * f, h}, 0, s.expert_parallel));
    out.push_back(tensor(p + "mlp.experts.experts.linear_fc2.weight", {e, h, f}, 0, s.expert_parallel));
  }
  out.push_back(tensor("decoder.final_layernorm.weight", {h}));
  out.push_back(tensor("output_layer.weight", {d.padded_vocab, h}, 0, kTp));
  return out;
}

uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : text) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  return hash;
}

}  // namespace

MoeDims dims_of(const MoeShape& s) {
  const auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("generated checkpoint: ") + what);
  };
  require(s.layers >= 1 && s.layers <= 1024, "layers must be 1 to 1024");
  require(s.dense_layers <= s.layers, "dense_layers must be at most layers");
  require(s.hidden >= 16 && s.hidden <= 65536, "hidden must be 16 to 65536");
  require(s.experts >= 1 && s.experts <= 4096, "experts must be 1 to 4096");
  require(s.expert_parallel >= 1 && s.experts % s.expert_parallel == 0, "expert_parallel must divide experts");
  require(s.vocab >= 1 && s.vocab <= 10'000'000, "vocab must be 1 to 10000000");
  MoeDims d{};
  // Kimi-K2 (hidden 7168): 64 heads, q_lora 1536, kv_lora 512, head dims 128 / 64 / 128.
  d.heads = std::max<int64_t>(1, s.hidden / 128);
  d.q_lora = std::max<int64_t>(8, s.hidden / 4);
  d.kv_lora = std::max<int64_t>(8, s.hidden / 8);
  d.nope = std::clamp<int64_t>(s.hidden / 32, 2, 128);
  d.rope = d.nope / 2;
  d.v_dim = d.nope;
  d.ffn = 2 * int64_t{s.hidden};
  d.padded_vocab = (int64_t{s.vocab} + 127) / 128 * 128;
  // Solve for the expert width: total(f) = fixed + f * per_unit, linear in f; at least
  // kTp, so that each TP chunk of the shared expert holds a column.
  d.moe_ffn = kTp;
  const uint64_t at_least = bytes_of(tensors_of(s, d));
  d.moe_ffn = kTp + 1;
  const uint64_t per_unit = bytes_of(tensors_of(s, d)) - at_least;
  d.moe_ffn = kTp + static_cast<int64_t>(s.target_bytes <= at_least ? 0 : (s.target_bytes - at_least) / per_unit);
  return d;
}

sdk::CheckpointListing plan_listing(const MoeShape& shape) {
  sdk::CheckpointListing listing;
  listing.tensors = tensors_of(shape, dims_of(shape));
  return listing;
}

uint64_t tensor_key(uint64_t seed, const std::string& name) {
  return seed * 0x9E3779B97F4A7C15ull ^ fnv1a64(name);
}

}  // namespace dopant::megatron_synthetic
