// Strict TOML table reading and the tables of a plan file. The file is read and parsed the
// way every dopant command reads TOML (dopant/support/toml_input.hpp).

#include "plan_input_toml.hpp"

#include <dopant/support/text.hpp>

#include <algorithm>

namespace dopant::planner {

// Strict TOML table reading for plan files: declared keys only, typed values, located errors.

TableReader::TableReader(const toml::table& table, std::string section, std::vector<std::string> allowed,
                         PlanInput& input)
    : table_(table), section_(std::move(section)), input_(input) {
  for (const auto& [key, node] : table_) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    fail_at(input_.source, position_of(key.source()),
            "unknown key " + quote_name(dotted(key.str())) + did_you_mean_suffix(key.str(), allowed));
  }
}

std::string TableReader::dotted(std::string_view key) const {
  return section_.empty() ? std::string(key) : section_ + "." + std::string(key);
}

SourcePos TableReader::position(std::string_view key) const {
  const auto found = table_.find(key);
  if (found != table_.end()) return position_of(found->first.source());
  return position_of(table_.source());
}

bool TableReader::has(std::string_view key) const { return table_.contains(key); }

void TableReader::fail(std::string_view key, std::string_view message) const {
  fail_at(input_.source, position(key), quote_name(dotted(key)) + " " + std::string(message));
}

const toml::node* TableReader::value(std::string_view key) {
  input_.positions.insert_or_assign(dotted(key), position(key));
  return table_.get(key);
}

uint64_t TableReader::count(std::string_view key, uint64_t minimum, uint64_t maximum) {
  const toml::node* node = value(key);
  if (node == nullptr) {
    fail_at(input_.source, position(key), "missing key " + quote_name(dotted(key)));
  }
  const auto* integer = node->as_integer();
  if (integer == nullptr) fail(key, std::string("must be an integer, got ") + toml_type_name(*node));
  if (integer->get() < 0 || static_cast<uint64_t>(integer->get()) < minimum) {
    fail(key, "must be at least " + std::to_string(minimum) + ", got " + std::to_string(integer->get()));
  }
  if (static_cast<uint64_t>(integer->get()) > maximum) {
    fail(key, "must be at most " + std::to_string(maximum) + ", got " + std::to_string(integer->get()));
  }
  return static_cast<uint64_t>(integer->get());
}

uint64_t TableReader::count_or(std::string_view key, uint64_t fallback, uint64_t minimum) {
  if (!has(key)) {
    value(key);  // records where the default applies
    return fallback;
  }
  return count(key, minimum);
}

bool TableReader::flag_or(std::string_view key, bool fallback) {
  const toml::node* node = value(key);
  if (node == nullptr) return fallback;
  const auto* flag = node->as_boolean();
  if (flag == nullptr) fail(key, std::string("must be a boolean, got ") + toml_type_name(*node));
  return flag->get();
}

std::string TableReader::text_or(std::string_view key, std::string fallback) {
  const toml::node* node = value(key);
  if (node == nullptr) return fallback;
  const auto* text = node->as_string();
  if (text == nullptr) fail(key, std::string("must be a string, got ") + toml_type_name(*node));
  return text->get();
}

std::string TableReader::choice(std::string_view key, const std::vector<std::string>& choices,
                                std::string fallback) {
  if (!has(key) && fallback.empty()) {
    fail_at(input_.source, position(key), "missing key " + quote_name(dotted(key)));
  }
  std::string text = text_or(key, fallback);
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    fail(key, "must be one of " + quoted_list(choices) + ", got " + quote_name(text) +
                  did_you_mean_suffix(text, choices));
  }
  return text;
}

std::optional<uint64_t> TableReader::size(std::string_view key) {
  const toml::node* node = value(key);
  if (node == nullptr) return std::nullopt;
  std::string error;
  const auto bytes = size_from_node(*node, &error);
  if (!bytes) fail(key, "is not a size: " + error);
  if (*bytes == 0) fail(key, "must be at least 1 byte");
  return bytes;
}

const toml::table* TableReader::subtable(std::string_view key) {
  const toml::node* node = value(key);
  if (node == nullptr) return nullptr;
  const auto* table = node->as_table();
  if (table == nullptr) fail(key, std::string("must be a table, got ") + toml_type_name(*node));
  return table;
}

void TableReader::forbid(std::string_view key, std::string_view reason) {
  if (has(key)) fail(key, "does not apply: " + std::string(reason));
}

// Plan files: TOML sections [model] (+ [model.attention], [model.moe]), [parallel],
// [training], [offload] and [device], read strictly into a PlanInput and then checked.

namespace {

void read_attention(const toml::table* table, PlanInput& input) {
  ModelShape& model = input.model;
  AttentionShape& attention = model.attention;
  const toml::table empty;
  TableReader reader(table ? *table : empty, "model.attention",
                     {"kind", "kv_heads", "head_dim", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                      "qk_rope_head_dim", "v_head_dim"},
                     input);
  if (reader.choice("kind", {"gqa", "mla"}, "gqa") == "mla") {
    attention.kind = AttentionKind::Mla;
    reader.forbid("kv_heads", "MLA has one latent for keys and values");
    reader.forbid("head_dim", "MLA sets qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
    attention.q_lora_rank = reader.count_or("q_lora_rank", 0, 0);
    attention.kv_lora_rank = reader.count("kv_lora_rank");
    attention.qk_nope_head_dim = reader.count("qk_nope_head_dim");
    attention.qk_rope_head_dim = reader.count("qk_rope_head_dim");
    attention.v_head_dim = reader.count("v_head_dim");
    return;
  }
  attention.kind = AttentionKind::Gqa;
  for (const char* key :
       {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}) {
    reader.forbid(key, "it belongs to MLA; set `kind = \"mla\"`");
  }
  attention.kv_heads = reader.count_or("kv_heads", model.heads);
  if (!reader.has("head_dim") && model.hidden % model.heads != 0) {
    fail_at(input.source, input.positions["model.heads"],
            "`model.heads` does not divide `model.hidden`; set `model.attention.head_dim`");
  }
  attention.head_dim = reader.count_or("head_dim", model.hidden / model.heads);
}

void read_moe(const toml::table& table, PlanInput& input) {
  MoeShape& moe = input.model.moe;
  TableReader reader(table, "model.moe", {"experts", "top_k", "expert_ffn", "shared_experts", "dense_layers"},
                     input);
  moe.experts = reader.count("experts");
  moe.top_k = reader.count("top_k");
  moe.expert_ffn = reader.count("expert_ffn");
  moe.shared_experts = reader.count_or("shared_experts", 0, 0);
  moe.dense_layers = reader.count_or("dense_layers", 0, 0);
}

// Layers are placed one by one on their stages: a million is far past any model and keeps
// that placement small.
constexpr uint64_t kMaxLayers = uint64_t{1} << 20;

void read_model(const toml::table& table, PlanInput& input) {
  ModelShape& model = input.model;
  TableReader reader(table, "model",
                     {"name", "layers", "hidden", "heads", "vocab", "ffn", "attention", "moe"}, input);
  model.name = reader.text_or("name", "model");
  model.layers = reader.count("layers", 1, kMaxLayers);
  model.hidden = reader.count("hidden");
  model.heads = reader.count("heads");
  model.vocab = reader.count("vocab");
  model.ffn = reader.count_or("ffn", 0);
  read_attention(reader.subtable("attention"), input);
  if (const toml::table* moe = reader.subtable("moe")) read_moe(*moe, input);
}

void read_parallel(const toml::table& table, PlanInput& input) {
  Parallelism& parallel = input.parallel;
  TableReader reader(
      table, "parallel",
      {"gpus", "tp", "pp", "dp", "cp", "ep", "expert_tp", "virtual_stages", "sequence_parallel"}, input);
  parallel.gpus = reader.count("gpus");
  parallel.tp = reader.count_or("tp", 1);
  parallel.pp = reader.count_or("pp", 1);
  parallel.dp = reader.count_or("dp", 1);
  parallel.cp = reader.count_or("cp", 1);
  parallel.ep = reader.count_or("ep", 1);
  parallel.expert_tp = reader.count_or("expert_tp", 1);
  parallel.virtual_stages = reader.count_or("virtual_stages", 1);
  parallel.sequence_parallel = reader.flag_or("sequence_parallel", parallel.tp > 1);
}

DataType data_type(const std::string& name) { return name == "bf16" ? DataType::Bf16 : DataType::Fp32; }

void read_training(const toml::table& table, PlanInput& input) {
  Training& training = input.training;
  TableReader reader(table, "training",
                     {"micro_batch", "context", "precision", "grad_dtype", "recompute",
                      "distributed_optimizer", "flash_attention"},
                     input);
  training.micro_batch = reader.count_or("micro_batch", 1);
  training.context = reader.count("context");
  training.precision = data_type(reader.choice("precision", {"bf16", "fp32"}, "bf16"));
  training.grad_dtype = data_type(reader.choice("grad_dtype", {"bf16", "fp32"}, "fp32"));
  const std::string recompute = reader.choice("recompute", {"none", "selective", "full"}, "none");
  training.recompute = recompute == "full"        ? Recompute::Full
                       : recompute == "selective" ? Recompute::Selective
                                                  : Recompute::None;
  training.distributed_optimizer = reader.flag_or("distributed_optimizer", true);
  training.flash_attention = reader.flag_or("flash_attention", true);
}

void read_offload(const toml::table& table, PlanInput& input) {
  TableReader reader(table, "offload", {"chunk"}, input);
  if (const auto chunk = reader.size("chunk")) input.offload.chunk_bytes = *chunk;
}

void read_device(const toml::table& table, PlanInput& input) {
  TableReader reader(table, "device", {"name", "memory"}, input);
  input.device.name = reader.text_or("name", "");
  input.device.memory_bytes = reader.size("memory");
}

// The section's table; fails when a required one is missing.
const toml::table* section(TableReader& root, std::string_view key, bool required, const PlanInput& input) {
  const toml::table* table = root.subtable(key);
  if (table == nullptr && required) {
    fail_at(input.source, kWholeFile, "missing table [" + std::string(key) + "]");
  }
  return table;
}

}  // namespace

PlanInput parse_plan_input(std::string_view text, const std::string& source) {
  PlanInput input;
  input.source = source;
  Diagnostics diagnostics(source);
  std::optional<toml::table> root = parse_toml_text(text, diagnostics);
  if (!root) throw PlanError(diagnostics.report());
  TableReader reader(*root, "", {"model", "parallel", "training", "offload", "device"}, input);
  read_model(*section(reader, "model", true, input), input);
  read_parallel(*section(reader, "parallel", true, input), input);
  read_training(*section(reader, "training", true, input), input);
  if (const toml::table* offload = section(reader, "offload", false, input)) read_offload(*offload, input);
  if (const toml::table* device = section(reader, "device", false, input)) read_device(*device, input);
  check_plan_input(input);
  return input;
}

PlanInput load_plan_input(const std::string& path) {
  const InputFile file = read_input_file(path);
  if (file.problem != InputFile::Problem::None) throw PlanError(file.message);
  return parse_plan_input(file.text, path);
}

}  // namespace dopant::planner
