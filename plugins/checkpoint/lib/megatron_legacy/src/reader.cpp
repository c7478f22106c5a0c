// Megatron legacy checkpoint -> global tensors whose chunks are byte ranges of the rank files
// (see reader.hpp). The rank file's pickle, from Megatron's checkpointing.py:
//   {"args": argparse.Namespace (state: a dict of the command-line arguments),
//    "checkpoint_version": 3.0, "iteration": int,
//    "model" | "model0".."modelN": {name: _rebuild_tensor_v2(...) or None, ...} (nested dicts
//                                   in older models, joined here with '.'),
//    "optimizer", "opt_param_scheduler", "rng_state", ...: not read}
// Rank folder names, from get_checkpoint_name: mp_rank_{tp:02d}, then _{pp:03d} when
// PP > 1, then _{ep:03d} when EP > 1; the args say which sizes apply.
#include "dopant/megatron_legacy/reader.hpp"

#include "dopant/megatron_legacy/parameter_names.hpp"
#include "dopant/megatron_legacy/saved_args.hpp"

#include <dopant/dcp/torch_archive.hpp>
#include <dopant/pickle/pickle.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace dopant::megatron_legacy {
namespace {

namespace fs = std::filesystem;
using pickle::Node;
using Kind = Node::Kind;

constexpr int kMaxNesting = 16;                    // nested state dicts of older models
constexpr const char* kRankFile = "model_optim_rng.pt";

[[noreturn]] void bad(const std::string& what) { sdk::fail(DPT_DATA_LOSS, what); }

std::string read_text(const std::string& path, uint64_t limit) {
  const checkpoint_io::InputFile file(path);
  if (file.size() > limit) bad(path + ": over the limit of " + std::to_string(limit) + " bytes");
  std::string text(file.size(), '\0');
  file.read(text.data(), text.size(), 0);
  return text;
}

// The folder that holds the mp_rank_* folders: `path` itself, or the one
// latest_checkpointed_iteration.txt in `path` names.
std::string iteration_folder(const std::string& path) {
  const fs::path tracker = fs::path(path) / "latest_checkpointed_iteration.txt";
  std::error_code error;
  if (fs::is_regular_file(tracker, error)) {
    std::string text = read_text(tracker.string(), 64);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    if (text == "release") return (fs::path(path) / "release").string();
    if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), ::isdigit)) {
      bad(tracker.string() + ": " + quote_name(text) + " is neither an iteration number nor \"release\"");
    }
    char name[32];
    std::snprintf(name, sizeof name, "iter_%07" PRIu64, static_cast<uint64_t>(std::stoull(text)));
    return (fs::path(path) / name).string();
  }
  for (const auto& entry : fs::directory_iterator(path, error)) {
    if (entry.path().filename().string().rfind("mp_rank_", 0) == 0) return path;
  }
  sdk::fail(DPT_INVALID_ARGUMENT, path + ": not a Megatron legacy checkpoint (no latest_checkpointed_iteration.txt "
                                         "and no mp_rank_* folders)");
}

// The parallel layout the args declare.
struct Layout {
  uint64_t tp = 1, pp = 1, ep = 1;
  bool gated = false;                       // args.swiglu: linear_fc1 is [gate; up]
  std::optional<uint64_t> layers, experts;  // args.num_layers, args.num_experts
  bool operator==(const Layout&) const = default;
};

const Node* argument(const Node& args, const char* name) {
  return args.state == nullptr ? nullptr : args.state->find(name);
}

Layout layout_of(const Node& args, const std::string& file) {
  Layout layout;
  const auto size = [&](const char* name, uint64_t& value) {
    const Node* node = argument(args, name);
    if (node == nullptr || node->kind == Kind::none) return;
    if (node->kind != Kind::integer || node->integer < 1 || node->integer > 1'000'000) {
      bad(file + ": args." + name + " must be a positive integer");
    }
    value = static_cast<uint64_t>(node->integer);
  };
  size("tensor_model_parallel_size", layout.tp);
  size("pipeline_model_parallel_size", layout.pp);
  size("expert_model_parallel_size", layout.ep);
  uint64_t count = 0;
  size("num_layers", count);
  if (count > 0) layout.layers = count;
  count = 0;
  size("num_experts", count);
  if (count > 0) layout.experts = count;
  const Node* swiglu = argument(args, "swiglu");
  layout.gated = swiglu != nullptr && swiglu->kind == Kind::boolean && swiglu->boolean;
  return layout;
}

std::string rank_folder_name(const Layout& layout, uint64_t tp, uint64_t pp, uint64_t ep) {
  char name[64];
  int n = std::snprintf(name, sizeof name, "mp_rank_%02" PRIu64, tp);
  if (layout.pp > 1) n += std::snprintf(name + n, sizeof name - n, "_%03" PRIu64, pp);
  if (layout.ep > 1) std::snprintf(name + n, sizeof name - n, "_%03" PRIu64, ep);
  return name;
}

// One parameter as one rank stores it.
struct Local {
  dcp::StoredTensor stored;
  size_t file = 0;  // index into files_
};

// What the merge needs of one rank file (its pickle is dropped once this is taken out, so
// memory follows the tensor count, not the pickles' size).
struct RankFile {
  Layout layout;
  std::vector<std::vector<std::pair<std::string, Local>>> chunks;  // [virtual chunk] -> tensors in file order
  sdk::Metadata scalars;  // iteration, checkpoint_version and the scalar args, as text
};

// The tensors of a (nested) state dict, named by their joined keys. The memo lets a pickle
// share one dict under many keys, which would make the walk exponential: a state dict is a
// tree, so a dict met twice is refused.
void collect(const Node& dict, const std::string& prefix, int depth, const std::string& what,
             const std::map<std::string, dcp::ArchiveEntry>& entries, const std::string& pickle_entry, size_t file,
             std::vector<std::pair<std::string, Local>>& out, std::set<std::string>& seen,
             std::set<const Node*>& dicts) {
  if (depth > kMaxNesting) bad(what + ": state dict nested deeper than " + std::to_string(kMaxNesting));
  if (!dicts.insert(&dict).second) bad(what + ": a dict appears twice in the state dict (not a tree)");
  for (size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    if (dict.items[i]->kind != Kind::string) bad(what + ": a state dict key is not a string");
    const std::string name = prefix + dict.items[i]->text;
    const Node& value = *dict.items[i + 1];
    const std::string label = what + ": tensor " + quote_name(name);
    if (value.kind == Kind::dict) {
      collect(value, name + ".", depth + 1, what, entries, pickle_entry, file, out, seen, dicts);
    } else if (dcp::is_stored_tensor(value)) {
      if (name.size() >= 13 && name.compare(name.size() - 13, 13, "._extra_state") == 0) continue;  // TE's own state
      if (!seen.insert(name).second) bad(label + " is listed twice (duplicate tensor name)");
      out.push_back({name, Local{dcp::stored_tensor(value, entries, pickle_entry, label), file}});
    } else if (value.kind != Kind::none) {
      bad(label + " is neither a tensor, None nor a dict");
    }
  }
}

}  // namespace

bool looks_like_legacy_checkpoint(const std::string& path) {
  try {
    return fs::is_directory(iteration_folder(path));
  } catch (const sdk::Error&) {
    return false;
  }
}

Reader::Reader(const std::string& path) {
  const std::string folder = iteration_folder(path);
  std::error_code error;
  std::vector<std::string> present;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("mp_rank_", 0) == 0) present.push_back(name);
  }
  if (error) sdk::fail(DPT_NOT_FOUND, folder + ": cannot list: " + error.message());
  if (present.empty()) bad(folder + ": no mp_rank_* folders");
  std::sort(present.begin(), present.end());  // mp_rank_00[_000[_000]] first

  // Parses one rank file: archive, pickle, args, model chunks.
  const auto parse = [&](const std::string& rank_folder) {
    files_.emplace_back((fs::path(folder) / rank_folder / kRankFile).string());
    const checkpoint_io::InputFile& input = files_.back();
    const auto entries = dcp::archive_entries(input, 0, input.size());
    const auto [pickle_name, bytes] = torch_save_pickle(input, entries);
    RankFile rank;
    const pickle::Document document = pickle::read(bytes, input.path());
    const Node& root = document.root();
    if (root.kind != Kind::dict) bad(input.path() + ": not a Megatron checkpoint (its pickle is not a dict)");
    const Node* args = root.find("args");
    if (args == nullptr || args->kind != Kind::object || args->qualified_name() != "argparse.Namespace") {
      bad(input.path() + ": no `args` (an argparse.Namespace) to say its parallel layout");
    }
    rank.layout = layout_of(*args, input.path());
    for (const char* key : {"iteration", "checkpoint_version"}) {
      if (const Node* value = root.find(key)) rank.scalars.emplace_back(key, scalar_text(*value));
    }
    append_saved_args(*args, rank.scalars);
    std::vector<const Node*> models;
    if (const Node* model = root.find("model")) models.push_back(model);
    for (size_t v = 0; const Node* model = root.find("model" + std::to_string(v)); ++v) models.push_back(model);
    if (models.empty()) bad(input.path() + ": no `model` state dict");
    for (size_t v = 0; v < models.size(); ++v) {
      const std::string what = input.path() + ": model" + (models.size() > 1 ? std::to_string(v) : "");
      if (models[v]->kind != Kind::dict) bad(what + " is not a dict");
      std::set<std::string> seen;
      std::set<const Node*> dicts;
      rank.chunks.emplace_back();
      collect(*models[v], "", 0, what, entries, pickle_name, files_.size() - 1, rank.chunks.back(), seen, dicts);
    }
    return rank;
  };

  // The first rank's args declare the layout; every rank folder it implies must be there, and no other.
  std::map<std::string, RankFile> ranks;
  ranks.emplace(present.front(), parse(present.front()));
  const Layout layout = ranks.begin()->second.layout;
  const std::string declared = files_.front().path() + " declares TP " + std::to_string(layout.tp) + ", PP " +
                               std::to_string(layout.pp) + ", EP " + std::to_string(layout.ep);
  std::set<std::string> expected;
  for (uint64_t t = 0; t < layout.tp; ++t) {
    for (uint64_t p = 0; p < layout.pp; ++p) {
      for (uint64_t e = 0; e < layout.ep; ++e) expected.insert(rank_folder_name(layout, t, p, e));
    }
  }
  for (const std::string& name : expected) {
    if (!std::binary_search(present.begin(), present.end(), name)) {
      sdk::fail(DPT_NOT_FOUND, (fs::path(folder) / name).string() + ": missing (" + declared + ")");
    }
  }
  for (const std::string& name : present) {
    if (!expected.count(name)) bad((fs::path(folder) / name).string() + ": not a rank of the layout (" + declared + ")");
  }
  for (const std::string& name : expected) {
    if (ranks.count(name)) continue;
    RankFile rank = parse(name);
    if (!(rank.layout == layout)) bad(files_.back().path() + ": its args' parallel layout differs from " + declared);
    ranks.emplace(name, std::move(rank));
  }
  const auto rank = [&](uint64_t t, uint64_t p, uint64_t e) -> const RankFile& {
    return ranks.at(rank_folder_name(layout, t, p, e));
  };
  const size_t virtual_chunks = rank(0, 0, 0).chunks.size();
  for (const auto& [name, file] : ranks) {
    if (file.chunks.size() != virtual_chunks) bad((fs::path(folder) / name).string() + ": a different number of model chunks");
  }

  // Global layer numbers: count each (virtual chunk, stage)'s layers, chunk-major.
  std::map<std::pair<size_t, uint64_t>, uint64_t> first_layer;  // (v, p) -> global number of its layer 0
  uint64_t layers = 0;
  for (size_t v = 0; v < virtual_chunks; ++v) {
    for (uint64_t p = 0; p < layout.pp; ++p) {
      first_layer[{v, p}] = layers;
      uint64_t count = 0;
      for (const auto& [name, local] : rank(0, p, 0).chunks[v]) {
        if (const auto layer = layer_number(name)) count = std::max(count, layer->value + 1);
      }
      layers += count;
    }
  }
  if (layout.layers && layers != *layout.layers) {
    bad(folder + ": the stages hold " + std::to_string(layers) + " layers, but args.num_layers is " +
        std::to_string(*layout.layers));
  }
  // Experts per expert rank: from args.num_experts, else by counting.
  uint64_t per_rank = 0;
  if (layout.experts) {
    if (*layout.experts % layout.ep != 0) bad(declared + ", but args.num_experts " + std::to_string(*layout.experts) +
                                              " is not a multiple of EP");
    per_rank = *layout.experts / layout.ep;
  } else {
    for (const auto& chunk : rank(0, 0, 0).chunks) {
      for (const auto& [name, local] : chunk) {
        if (const auto expert = expert_number(name)) per_rank = std::max(per_rank, expert->value + 1);
      }
    }
  }

  // Global name -> its part on each TP rank, in first-seen order.
  struct Parts {
    std::string name;
    std::vector<const Local*> by_tp;
    std::string holder;  // the file that first held it, for the duplicate message
  };
  std::vector<Parts> merged;
  std::map<std::string, size_t> index;
  std::map<std::pair<std::string, uint64_t>, const Local*> replicated_on_ep0;  // (name, TP rank) -> EP rank 0's part
  for (size_t v = 0; v < virtual_chunks; ++v) {
    for (uint64_t p = 0; p < layout.pp; ++p) {
      for (uint64_t e = 0; e < layout.ep; ++e) {
        for (uint64_t t = 0; t < layout.tp; ++t) {
          const RankFile& file = rank(t, p, e);
          for (const auto& [local_name, local] : file.chunks[v]) {
            std::string name = local_name;
            const auto expert = expert_number(name);
            if (expert) {
              if (expert->value >= per_rank) {
                bad(files_[local.file].path() + ": tensor " + quote_name(local_name) + ": expert " +
                    std::to_string(expert->value) + " past the " + std::to_string(per_rank) + " experts per EP rank");
              }
              name = renumbered(name, *expert, e * per_rank + expert->value);
            }
            if (const auto layer = layer_number(name)) name = renumbered(name, *layer, first_layer[{v, p}] + layer->value);
            if (!expert && e > 0) {  // the same on every expert rank: check it against expert rank 0's
              const auto same = replicated_on_ep0.find({name, t});
              if (same == replicated_on_ep0.end() || same->second->stored.shape != local.stored.shape ||
                  same->second->stored.dtype != local.stored.dtype) {
                bad(files_[local.file].path() + ": tensor " + quote_name(local_name) +
                    " differs in shape or dtype from expert rank 0's, or is not there");
              }
              continue;
            }
            if (!expert) replicated_on_ep0[{name, t}] = &local;
            const auto [found, added] = index.emplace(name, merged.size());
            if (added) merged.push_back(Parts{name, std::vector<const Local*>(layout.tp, nullptr), files_[local.file].path()});
            Parts& parts = merged[found->second];
            if (parts.by_tp[t] != nullptr) {
              bad(files_[local.file].path() + ": tensor " + quote_name(name) + " is also held by " + parts.holder +
                  " (duplicate tensor name)");
            }
            parts.by_tp[t] = &local;
          }
        }
      }
    }
  }

  // Each global tensor: its TP parts as chunks.
  for (const Parts& parts : merged) {
    const std::string label = "tensor " + quote_name(parts.name);
    for (uint64_t t = 0; t < layout.tp; ++t) {
      if (parts.by_tp[t] == nullptr) {
        bad(folder + ": " + label + " is held by " + parts.holder + " but not by TP rank " + std::to_string(t));
      }
    }
    const Local& first = *parts.by_tp[0];
    const TensorSplit split = layout.tp == 1 ? TensorSplit::whole : tensor_split(parts.name, layout.gated);
    if (split == TensorSplit::unknown) {
      bad(parts.holder + ": " + label + ": not a parameter whose tensor-parallel split this reader knows");
    }
    const size_t axis = split == TensorSplit::columns ? 1 : 0;
    if (split != TensorSplit::whole && first.stored.shape.size() <= axis) {
      bad(parts.holder + ": " + label + " has too few dimensions to be split along axis " + std::to_string(axis));
    }
    sdk::CheckpointListing::Tensor tensor{parts.name, first.stored.dtype->dl, first.stored.shape, {}};
    std::vector<size_t> files_of_chunks;
    // Every rank's part must have rank 0's dtype and, but for the split axis, its shape.
    for (uint64_t t = 1; t < layout.tp; ++t) {
      const dcp::StoredTensor& other = parts.by_tp[t]->stored;
      bool same = other.dtype == first.stored.dtype && other.shape.size() == first.stored.shape.size();
      for (size_t d = 0; same && d < other.shape.size(); ++d) {
        same = other.shape[d] == first.stored.shape[d] || (split != TensorSplit::whole && d == axis);
      }
      if (!same) {
        bad(files_[parts.by_tp[t]->file].path() + ": " + label + ": its shape or dtype on TP rank " +
            std::to_string(t) + " is inconsistent with TP rank 0's (" + files_[first.file].path() + ")");
      }
    }
    // A chunk: `local`'s elements from `byte_skip` on, `extent` of them along `axis`, at `offset`.
    const auto add_chunk = [&](const Local& local, int64_t offset, int64_t extent, uint64_t byte_skip) {
      sdk::CheckpointListing::Chunk chunk;
      chunk.offsets.assign(local.stored.shape.size(), 0);
      chunk.sizes = local.stored.shape;
      if (split != TensorSplit::whole) {
        chunk.offsets[axis] = offset;
        chunk.sizes[axis] = extent;
      }
      uint64_t bytes = sdk::element_bytes(local.stored.dtype->dl);
      for (const int64_t extent : chunk.sizes) bytes *= static_cast<uint64_t>(extent);
      chunk.file = files_[local.file].path();
      chunk.byte_offset = local.stored.byte_offset + byte_skip;
      chunk.byte_length = bytes;
      tensor.chunks.push_back(std::move(chunk));
      files_of_chunks.push_back(local.file);
    };
    if (split == TensorSplit::whole) {
      add_chunk(first, 0, 0, 0);
    } else if (split == TensorSplit::gated_rows) {
      // Rank t holds [gate_t; up_t], each half its rows / 2: gate_t goes to rows [sum of the
      // earlier halves, ...), up_t to G + the same, with G = the sum of all halves.
      int64_t gate_rows = 0;
      for (const Local* part : parts.by_tp) {
        if (part->stored.shape[0] % 2 != 0) {
          bad(files_[part->file].path() + ": " + label + ": a gated linear_fc1 with an odd number of rows (" +
              std::to_string(part->stored.shape[0]) + ")");
        }
        gate_rows += part->stored.shape[0] / 2;
      }
      tensor.shape[0] = 2 * gate_rows;
      int64_t at = 0;
      for (const Local* part : parts.by_tp) {
        const int64_t half = part->stored.shape[0] / 2;
        add_chunk(*part, at, half, 0);
        add_chunk(*part, gate_rows + at, half, part->stored.byte_length / 2);
        at += half;
      }
    } else {
      int64_t at = 0;
      for (const Local* part : parts.by_tp) {
        add_chunk(*part, at, part->stored.shape[axis], 0);
        at += part->stored.shape[axis];
      }
      tensor.shape[axis] = at;
    }
    listing_.tensors.push_back(std::move(tensor));
    file_of_.push_back(std::move(files_of_chunks));
  }

  listing_.metadata = {{"format", "megatron-legacy"}, {"folder", folder}};
  const sdk::Metadata& scalars = rank(0, 0, 0).scalars;
  listing_.metadata.insert(listing_.metadata.end(), scalars.begin(), scalars.end());
  listing_.seal();
}

void Reader::read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const {
  files_[file_of_[tensor][chunk]].read(buffer, bytes, listing_.tensors[tensor].chunks[chunk].byte_offset);
}

}  // namespace dopant::megatron_legacy
