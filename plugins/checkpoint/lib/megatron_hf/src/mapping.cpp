// Megatron → Hugging Face names and layouts (see mapping.hpp). Megatron's names, as its
// transformer engine layer specs and sharded state dicts give them:
//   decoder.layers.N.KEY        one layer (per-layer keys)
//   decoder.layers.KEY          all layers, the layer index prepended as axis 0 (stacked)
//   mtp.layers.I.KEY            multi-token prediction layer I (DeepSeek-V3)
//   embedding.word_embeddings.weight, decoder.final_layernorm.weight, output_layer.weight
// MoE experts come either with the expert index as axis 0 (torch_dist:
// mlp.experts.experts.linear_fc1.weight [E, 2F, H]) or one tensor per expert (legacy:
// mlp.experts.local_experts.E.linear_fc1.weight, or mlp.experts.linear_fc1.weightE for grouped
// experts); a per-expert tensor is seen as the first form with one expert, numbered E.
#include "dopant/megatron_hf/mapping.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <stdexcept>

namespace dopant::megatron_hf {
namespace {

enum class Op { kCopy, kQkv, kGated, kExpertsGated, kExperts, kVocab };

// Which models a layer key belongs to.
enum Models : unsigned { kDense = 1, kQwen2 = 2, kMla = 4, kAll = kDense | kQwen2 | kMla };

struct Rule {
  const char* megatron;  // key inside a layer
  Op op;
  const char* hf;        // HF name inside the layer; for a split, its parts joined by '|'
  unsigned models;
};

// clang-format off
constexpr Rule kLayerRules[] = {
  {"input_layernorm.weight",                             Op::kCopy,  "input_layernorm.weight", kAll},
  {"self_attention.linear_qkv.layer_norm_weight",        Op::kCopy,  "input_layernorm.weight", kDense | kQwen2},
  {"self_attention.linear_qkv.weight",                   Op::kQkv,   "self_attn.q_proj.weight|self_attn.k_proj.weight|self_attn.v_proj.weight", kDense | kQwen2},
  {"self_attention.linear_qkv.bias",                     Op::kQkv,   "self_attn.q_proj.bias|self_attn.k_proj.bias|self_attn.v_proj.bias", kQwen2},
  {"self_attention.linear_proj.weight",                  Op::kCopy,  "self_attn.o_proj.weight", kAll},
  {"self_attention.linear_q_down_proj.weight",           Op::kCopy,  "self_attn.q_a_proj.weight", kMla},
  {"self_attention.linear_q_up_proj.layer_norm_weight",  Op::kCopy,  "self_attn.q_a_layernorm.weight", kMla},
  {"self_attention.linear_q_up_proj.weight",             Op::kCopy,  "self_attn.q_b_proj.weight", kMla},
  {"self_attention.linear_kv_down_proj.weight",          Op::kCopy,  "self_attn.kv_a_proj_with_mqa.weight", kMla},
  {"self_attention.linear_kv_up_proj.layer_norm_weight", Op::kCopy,  "self_attn.kv_a_layernorm.weight", kMla},
  {"self_attention.linear_kv_up_proj.weight",            Op::kCopy,  "self_attn.kv_b_proj.weight", kMla},
  {"pre_mlp_layernorm.weight",                           Op::kCopy,  "post_attention_layernorm.weight", kAll},
  {"mlp.linear_fc1.layer_norm_weight",                   Op::kCopy,  "post_attention_layernorm.weight", kAll},
  {"mlp.linear_fc1.weight",                              Op::kGated, "mlp.gate_proj.weight|mlp.up_proj.weight", kAll},
  {"mlp.linear_fc2.weight",                              Op::kCopy,  "mlp.down_proj.weight", kAll},
  {"mlp.router.weight",                                  Op::kCopy,  "mlp.gate.weight", kMla},
  {"mlp.router.expert_bias",                             Op::kCopy,  "mlp.gate.e_score_correction_bias", kMla},
  {"mlp.shared_experts.linear_fc1.weight",               Op::kGated, "mlp.shared_experts.gate_proj.weight|mlp.shared_experts.up_proj.weight", kMla},
  {"mlp.shared_experts.linear_fc2.weight",               Op::kCopy,  "mlp.shared_experts.down_proj.weight", kMla},
  {"mlp.experts.experts.linear_fc1.weight",              Op::kExpertsGated, "gate_proj.weight|up_proj.weight", kMla},
  {"mlp.experts.experts.linear_fc2.weight",              Op::kExperts, "down_proj.weight", kMla},
};
// The MTP layer's own tensors (DeepSeek-V3), besides its transformer_layer.
constexpr Rule kMtpRules[] = {
  {"enorm.weight",           Op::kCopy, "enorm.weight", kMla},
  {"hnorm.weight",           Op::kCopy, "hnorm.weight", kMla},
  {"eh_proj.weight",         Op::kCopy, "eh_proj.weight", kMla},
  {"final_layernorm.weight", Op::kCopy, "shared_head.norm.weight", kMla},
};
constexpr Rule kGlobalRules[] = {
  {"embedding.word_embeddings.weight", Op::kVocab, "model.embed_tokens.weight", kAll},
  {"output_layer.weight",              Op::kVocab, "lm_head.weight", kAll},
  {"decoder.final_layernorm.weight",   Op::kCopy,  "model.norm.weight", kAll},
};
// clang-format on

unsigned model_bit(Model model) {
  switch (model) {
    case Model::kLlama: return kDense;
    case Model::kQwen2: return kQwen2;
    case Model::kDeepSeekV3:
    case Model::kKimiK2: return kMla;
  }
  return 0;
}

const char* model_name(Model model) {
  switch (model) {
    case Model::kLlama: return "llama";
    case Model::kQwen2: return "qwen2";
    case Model::kDeepSeekV3: return "deepseek-v3";
    case Model::kKimiK2: return "kimi-k2";
  }
  return "?";
}

std::vector<std::string> split_names(const char* joined) {
  std::vector<std::string> parts(1);
  for (const char* c = joined; *c != '\0'; ++c) {
    if (*c == '|') parts.emplace_back();
    else parts.back() += *c;
  }
  return parts;
}

template <typename T>
std::vector<T> joined(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// One Megatron tensor as the rules see it: for a stacked key, the layer axis is a prefix
// of the view, narrowed to one layer.
struct Local {
  uint64_t source;
  const sdk::CheckpointListing::Tensor* tensor;
  std::vector<int64_t> prefix_view, prefix_begin, prefix_size;
  std::vector<int64_t> shape;  // without the prefix
  int64_t first_expert = 0;    // the number of expert 0 of an experts tensor
};

class Planner {
 public:
  Planner(const sdk::CheckpointListing& listing, const ModelArgs& args) : listing_(listing), args_(args) {}

  std::vector<OutputTensor> run();

 private:
  [[noreturn]] void refuse(const Local& local, const std::string& why) const {
    sdk::fail(DPT_INVALID_ARGUMENT, "Megatron tensor " + quote_name(local.tensor->name) + ": " + why);
  }
  void emit(const Local& local, const std::string& name, std::vector<int64_t> view, std::vector<int64_t> begin,
            std::vector<int64_t> size, std::vector<int64_t> shape);
  void copy_rows(const Local& local, const std::string& name, int64_t first, int64_t count);
  void apply(const Rule& rule, const Local& local, const std::string& hf_prefix);
  void layer_key(const Local& local, const std::string& key, int64_t layer);
  void mtp_key(const Local& local, const std::string& key, int64_t index);

  const sdk::CheckpointListing& listing_;
  const ModelArgs& args_;
  int64_t decoder_layers_ = 0;
  std::vector<std::pair<Local, std::string>> pending_copies_;  // embedding, output layer → MTP copy name
  std::vector<OutputTensor> out_;
};

void Planner::emit(const Local& local, const std::string& name, std::vector<int64_t> view, std::vector<int64_t> begin,
                   std::vector<int64_t> size, std::vector<int64_t> shape) {
  OutputTensor t;
  t.name = name;
  t.source = local.source;
  t.dtype = local.tensor->dtype;
  t.shape = std::move(shape);
  t.view = joined(local.prefix_view, view);
  t.begin = joined(local.prefix_begin, begin);
  t.size = joined(local.prefix_size, size);
  t.bytes = sdk::element_bytes(t.dtype);
  for (int64_t extent : t.shape) t.bytes *= static_cast<uint64_t>(extent);
  out_.push_back(std::move(t));
}

// Rows [first, first + count) of the tensor (its whole trailing dimensions).
void Planner::copy_rows(const Local& local, const std::string& name, int64_t first, int64_t count) {
  std::vector<int64_t> begin(local.shape.size(), 0), size = local.shape;
  if (!local.shape.empty()) {
    begin[0] = first;
    size[0] = count;
  }
  emit(local, name, local.shape, begin, size, size);
}

void Planner::apply(const Rule& rule, const Local& local, const std::string& p) {
  if ((rule.models & model_bit(args_.model)) == 0) {
    refuse(local, std::string("has no Hugging Face counterpart in model ") + model_name(args_.model));
  }
  const std::vector<std::string> names = split_names(rule.hf);
  const std::vector<int64_t>& s = local.shape;
  switch (rule.op) {
    case Op::kCopy: copy_rows(local, p + names[0], 0, s.empty() ? 0 : s[0]); return;
    case Op::kVocab:
      if (args_.vocab_size <= 0) refuse(local, "the vocabulary size is not known (give --vocab-size; the checkpoint records no args.vocab_size "
                        "or args.padded_vocab_size)");
      if (s.empty() || s[0] < args_.vocab_size) {
        refuse(local, "holds fewer rows than the vocabulary size " + std::to_string(args_.vocab_size));
      }
      copy_rows(local, p + names[0], 0, args_.vocab_size);  // rows past vocab_size are padding
      return;
    case Op::kGated:
      if (s.empty() || s[0] % 2 != 0) refuse(local, "gated fc1 needs an even number of rows");
      copy_rows(local, p + names[0], 0, s[0] / 2);         // gate
      copy_rows(local, p + names[1], s[0] / 2, s[0] / 2);  // up
      return;
    case Op::kQkv: {
      const int64_t groups = args_.query_groups, heads = args_.heads;
      if (heads <= 0 || groups <= 0 || heads % groups != 0) {
        refuse(local, "splitting fused QKV needs --heads and --query-groups, heads a multiple of groups (the "
                        "checkpoint records no args.num_attention_heads / args.num_query_groups)");
      }
      const int64_t per_group = heads / groups + 2;  // query heads of a group, then k, then v
      if (s.empty() || s[0] % (groups * per_group) != 0) {
        refuse(local, "rows are not groups x (heads/groups + 2) x head_dim for " + std::to_string(heads) +
                          " heads in " + std::to_string(groups) + " groups");
      }
      const int64_t head_dim = s[0] / (groups * per_group);
      const std::vector<int64_t> rest(s.begin() + 1, s.end());
      const std::vector<int64_t> view = joined({groups, per_group, head_dim}, rest);
      const std::vector<int64_t> zeros(rest.size(), 0);
      // (first head within the group, heads) of q, k, v
      const std::pair<int64_t, int64_t> parts[3] = {{0, per_group - 2}, {per_group - 2, 1}, {per_group - 1, 1}};
      for (int i = 0; i < 3; ++i) {
        emit(local, p + names[i], view, joined({0, parts[i].first, 0}, zeros),
             joined({groups, parts[i].second, head_dim}, rest), joined({groups * parts[i].second * head_dim}, rest));
      }
      return;
    }
    case Op::kExpertsGated:
    case Op::kExperts: {
      if (s.size() != 3) refuse(local, "experts must be [experts, rows, columns]");
      const bool gated = rule.op == Op::kExpertsGated;
      if (gated && s[1] % 2 != 0) refuse(local, "gated expert fc1 needs an even number of rows");
      const int64_t rows = gated ? s[1] / 2 : s[1];
      for (int64_t e = 0; e < s[0]; ++e) {
        for (size_t part = 0; part < names.size(); ++part) {
          emit(local, p + "mlp.experts." + std::to_string(local.first_expert + e) + "." + names[part], s, {e, rows * int64_t(part), 0},
               {1, rows, s[2]}, {rows, s[2]});
        }
      }
      return;
    }
  }
}

// A legacy per-expert key (`mlp.experts.local_experts.E.linear_fcN.weight` or
// `mlp.experts.linear_fcN.weightE`) as (E, the experts-axis key); nullopt for any other key.
std::optional<std::pair<int64_t, std::string>> per_expert_key(const std::string& key) {
  constexpr std::string_view kLocal = "mlp.experts.local_experts.", kGrouped = "mlp.experts.linear_fc";
  const auto numbered = [](std::string_view digits) -> std::optional<int64_t> {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
    return value;
  };
  if (key.rfind(kLocal, 0) == 0) {
    const size_t dot = key.find('.', kLocal.size());
    if (dot == std::string::npos) return std::nullopt;
    const auto expert = numbered(std::string_view(key).substr(kLocal.size(), dot - kLocal.size()));
    if (!expert) return std::nullopt;
    return std::make_pair(*expert, "mlp.experts.experts." + key.substr(dot + 1));
  }
  if (key.rfind(kGrouped, 0) == 0) {
    const size_t weight = key.find(".weight", kGrouped.size());
    if (weight == std::string::npos) return std::nullopt;
    const size_t digits = weight + 7;
    const auto expert = numbered(std::string_view(key).substr(digits));
    if (!expert) return std::nullopt;
    return std::make_pair(*expert, "mlp.experts.experts." + key.substr(12, digits - 12));
  }
  return std::nullopt;
}

void Planner::layer_key(const Local& local, const std::string& key, int64_t layer) {
  if (const auto expert = per_expert_key(key)) {
    Local one = local;  // one expert: its tensor seen with an expert axis of 1
    one.shape.insert(one.shape.begin(), 1);
    one.first_expert = expert->first;
    return layer_key(one, expert->second, layer);
  }
  for (const Rule& rule : kLayerRules) {
    if (key == rule.megatron) return apply(rule, local, "model.layers." + std::to_string(layer) + ".");
  }
  refuse(local, "has no Hugging Face mapping");
}

void Planner::mtp_key(const Local& local, const std::string& key, int64_t index) {
  if (args_.model != Model::kDeepSeekV3) {
    refuse(local, std::string("is an MTP layer, which model ") + model_name(args_.model) + " has none of");
  }
  const int64_t layer = decoder_layers_ + index;  // HF puts MTP layer i after the decoder's
  constexpr std::string_view kInner = "transformer_layer.";
  if (key.rfind(kInner, 0) == 0) return layer_key(local, key.substr(kInner.size()), layer);
  for (const Rule& rule : kMtpRules) {
    if (key == rule.megatron) return apply(rule, local, "model.layers." + std::to_string(layer) + ".");
  }
  refuse(local, "has no Hugging Face mapping");
}

// "N.rest" → (N, rest); nullopt when `text` does not start with digits and a dot.
std::optional<std::pair<int64_t, std::string>> leading_index(const std::string& text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || *end != '.' || text[0] == '-') return std::nullopt;
  return std::make_pair(value, std::string(end + 1, text.data() + text.size()));
}

bool is_model_weight(const std::string& name) {
  return name.rfind("optimizer.", 0) != 0 && name.rfind("rng_state", 0) != 0 &&
         name.find("_extra_state") == std::string::npos;
}

std::vector<OutputTensor> Planner::run() {
  constexpr std::string_view kDecoder = "decoder.layers.", kMtp = "mtp.layers.";
  const auto& tensors = listing_.tensors;
  // The decoder's layer count, which numbers the MTP layers after it.
  for (const auto& t : tensors) {
    if (t.name.rfind(kDecoder, 0) != 0) continue;
    const auto indexed = leading_index(t.name.substr(kDecoder.size()));
    if (indexed) decoder_layers_ = std::max(decoder_layers_, indexed->first + 1);
    else if (!t.shape.empty()) decoder_layers_ = std::max(decoder_layers_, t.shape[0]);
  }
  std::map<std::string, int64_t> mtp_layers;  // HF prefix → MTP index, for the copied embeddings
  for (uint64_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (!is_model_weight(t.name)) continue;
    Local local{i, &t, {}, {}, {}, t.shape};
    if (t.name.rfind(kDecoder, 0) == 0) {
      const std::string rest = t.name.substr(kDecoder.size());
      if (const auto indexed = leading_index(rest)) {
        layer_key(local, indexed->second, indexed->first);
        continue;
      }
      if (t.shape.empty()) refuse(local, "a stacked layer key needs the layer axis");
      local.shape.erase(local.shape.begin());
      for (int64_t layer = 0; layer < t.shape[0]; ++layer) {
        local.prefix_view = {t.shape[0]};
        local.prefix_begin = {layer};
        local.prefix_size = {1};
        layer_key(local, rest, layer);
      }
      continue;
    }
    if (t.name.rfind(kMtp, 0) == 0) {
      const auto indexed = leading_index(t.name.substr(kMtp.size()));
      if (!indexed) refuse(local, "an MTP key needs the layer index");
      mtp_key(local, indexed->second, indexed->first);
      mtp_layers["model.layers." + std::to_string(decoder_layers_ + indexed->first) + "."] = indexed->first;
      continue;
    }
    const Rule* rule = nullptr;
    for (const Rule& r : kGlobalRules) {
      if (t.name == r.megatron) rule = &r;
    }
    if (rule == nullptr) refuse(local, "has no Hugging Face mapping");
    apply(*rule, local, "");
    // Each MTP layer holds its own copies of the embedding and the output layer.
    if (std::string(rule->megatron) != "decoder.final_layernorm.weight") {
      const std::string copy = rule->op == Op::kVocab && std::string(rule->hf) == "lm_head.weight"
                                   ? "shared_head.head.weight" : "embed_tokens.weight";
      pending_copies_.push_back({local, copy});
    }
  }
  for (const auto& [prefix, index] : mtp_layers) {
    for (const auto& [local, name] : pending_copies_) copy_rows(local, prefix + name, 0, args_.vocab_size);
  }
  std::sort(out_.begin(), out_.end(), [](const OutputTensor& a, const OutputTensor& b) { return a.name < b.name; });
  for (size_t i = 1; i < out_.size(); ++i) {
    if (out_[i].name == out_[i - 1].name) {
      sdk::fail(DPT_ALREADY_EXISTS, "Hugging Face tensor " + quote_name(out_[i].name) + " would come from both " +
                                        quote_name(tensors[out_[i - 1].source].name) + " and " +
                                        quote_name(tensors[out_[i].source].name) + " (duplicate tensor)");
    }
  }
  return std::move(out_);
}

}  // namespace

Model parse_model(const std::string& name) {
  for (Model model : {Model::kLlama, Model::kQwen2, Model::kDeepSeekV3, Model::kKimiK2}) {
    if (name == model_name(model)) return model;
  }
  throw std::invalid_argument("--model: unknown model `" + name + "` (llama, qwen2, deepseek-v3, kimi-k2)");
}

ModelArgs with_checkpoint_args(ModelArgs flags, const sdk::Metadata& metadata) {
  // args.NAME as a positive integer; nullopt when it is absent or None.
  const auto arg = [&](const std::string& name) -> std::optional<int64_t> {
    for (const auto& [key, text] : metadata) {
      if (key != "args." + name || text == "None") continue;
      int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
        sdk::fail(DPT_INVALID_ARGUMENT, "checkpoint args." + name + ": `" + text + "` is not a positive integer");
      }
      return value;
    }
    return std::nullopt;
  };
  if (flags.heads == 0) flags.heads = arg("num_attention_heads").value_or(0);
  if (flags.query_groups == 0) {
    const bool grouped = std::find(metadata.begin(), metadata.end(),
                                   std::make_pair(std::string("args.group_query_attention"), std::string("False"))) ==
                         metadata.end();
    flags.query_groups = grouped ? arg("num_query_groups").value_or(0) : flags.heads;
  }
  if (flags.vocab_size == 0) flags.vocab_size = arg("vocab_size").value_or(arg("padded_vocab_size").value_or(0));
  return flags;
}

std::vector<OutputTensor> plan_hf(const sdk::CheckpointListing& listing, const ModelArgs& args) {
  return Planner(listing, args).run();
}

}  // namespace dopant::megatron_hf
