// The input of the memory planner: model shape, parallel layout, training settings and the
// offload chunk, as read from a plan TOML file (see docs/memory.md for every key); the
// located error its readers and checks throw; and the consistency checks of a parsed plan.
#pragma once

#include <dopant/support/toml_input.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dopant::planner {

// Checked arithmetic for every count and byte total of a plan. A plan file's numbers
// multiply into sizes that could pass 2^64 - 1; each product and sum below goes through
// mul() and sum(), which throw PlanSizeOverflow instead of wrapping to a wrong, small plan.
// check_plan_input and plan_memory turn it into a PlanError naming the file.

struct PlanSizeOverflow : std::overflow_error {
  PlanSizeOverflow() : std::overflow_error("a plan size passes 2^64 - 1") {}
};

inline uint64_t mul2(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) throw PlanSizeOverflow();
  return product;
}
inline uint64_t add2(uint64_t a, uint64_t b) {
  uint64_t total = 0;
  if (__builtin_add_overflow(a, b, &total)) throw PlanSizeOverflow();
  return total;
}
// a * b * ... and a + b + ..., each step checked.
template <typename... Rest>
uint64_t mul(uint64_t first, Rest... rest) {
  ((first = mul2(first, static_cast<uint64_t>(rest))), ...);
  return first;
}
template <typename... Rest>
uint64_t sum(uint64_t first, Rest... rest) {
  ((first = add2(first, static_cast<uint64_t>(rest))), ...);
  return first;
}


// The input of the memory planner: model shape, parallel layout, training settings and the
// offload chunk, as read from a plan TOML file (see docs/memory.md for every key).

enum class AttentionKind { Gqa, Mla };

// Attention projections. GQA uses kv_heads and head_dim; MLA uses the low-rank fields.
struct AttentionShape {
  AttentionKind kind = AttentionKind::Gqa;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t q_lora_rank = 0;  // 0: queries projected directly from the hidden state
  uint64_t kv_lora_rank = 0;
  uint64_t qk_nope_head_dim = 0;
  uint64_t qk_rope_head_dim = 0;
  uint64_t v_head_dim = 0;
};

// Mixture of experts; experts == 0 means every layer has the dense FFN.
struct MoeShape {
  uint64_t experts = 0;
  uint64_t top_k = 0;
  uint64_t expert_ffn = 0;  // intermediate size of one routed or shared expert
  uint64_t shared_experts = 0;
  uint64_t dense_layers = 0;  // the first dense_layers layers use the dense FFN
};

struct ModelShape {
  std::string name;
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t vocab = 0;
  uint64_t ffn = 0;  // dense FFN intermediate size
  AttentionShape attention;
  MoeShape moe;

  bool has_moe() const { return moe.experts > 0; }
  bool is_dense_layer(uint64_t layer) const { return !has_moe() || layer < moe.dense_layers; }
};

// GPU grid: gpus = tp * pp * dp * cp; routed experts are split over ep * expert_tp.
struct Parallelism {
  uint64_t gpus = 0;
  uint64_t tp = 1;
  uint64_t pp = 1;
  uint64_t dp = 1;
  uint64_t cp = 1;
  uint64_t ep = 1;
  uint64_t expert_tp = 1;
  uint64_t virtual_stages = 1;  // interleaved 1F1B model chunks per pipeline rank
  bool sequence_parallel = false;

  // Ranks over which one copy of the non-expert optimizer state is sharded.
  uint64_t dense_dp() const { return mul(dp, cp); }
  // Megatron's expert-data-parallel size: world / (ep * expert_tp * pp).
  uint64_t expert_dp() const { return mul(tp, cp, dp) / mul(ep, expert_tp); }
};

enum class DataType { Bf16, Fp32 };
enum class Recompute { None, Selective, Full };

struct Training {
  uint64_t micro_batch = 1;
  uint64_t context = 0;                 // tokens per sequence
  DataType precision = DataType::Bf16;  // parameter dtype; bf16 adds an fp32 master copy
  DataType grad_dtype = DataType::Fp32;
  Recompute recompute = Recompute::None;
  bool distributed_optimizer = true;
  bool flash_attention = true;
};

struct Offload {
  uint64_t chunk_bytes = uint64_t{256} << 20;
};

struct Device {
  std::string name;
  std::optional<uint64_t> memory_bytes;  // capacity, to say whether a plan fits
};

// Where a key sits in the file; line 0 when unknown.

struct PlanInput {
  std::string source;  // file name, for messages
  ModelShape model;
  Parallelism parallel;
  Training training;
  Offload offload;
  Device device;
  // "section.key" -> position of the key, or of its table when the key was defaulted.
  std::map<std::string, SourcePos, std::less<>> positions;
};

// Bytes of one element.
inline uint64_t bytes_of(DataType type) { return type == DataType::Bf16 ? 2 : 4; }

const char* name_of(DataType type);
const char* name_of(Recompute recompute);
const char* name_of(AttentionKind kind);

// The planner's input error: one line, "FILE:LINE:COLUMN: message".

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws PlanError located at `position` of `source` (kWholeFile: the file alone).
[[noreturn]] void fail_at(const std::string& source, SourcePos position, std::string_view message);

// Consistency checks of a parsed plan: the GPU grid multiplies out, every split divides
// what it splits, and MoE settings are coherent. The first problem is a located PlanError.

void check_plan_input(const PlanInput& input);

// Throws the PlanError for a plan whose sizes pass 64 bits (a PlanSizeOverflow caught).
[[noreturn]] void fail_too_large(const PlanInput& input);

}  // namespace dopant::planner
