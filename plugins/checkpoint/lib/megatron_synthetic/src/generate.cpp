// Writing the generated checkpoint (see generator.hpp): each chunk's values into a buffer,
// appended to its .distcp file as one torch.save archive, then the DCP Metadata pickled as
// PyTorch 1.13 pickles it (dataclasses as NEWOBJ + BUILD of their __dict__,
// TensorProperties' state as its 1.13 tuple), common.pt with Megatron's args, all inside
// a hidden folder renamed into place at the end.
#include "dopant/megatron_synthetic/generator.hpp"

#include <dopant/checkpoint_io/append_file.hpp>
#include <dopant/dcp/torch_archive.hpp>
#include <dopant/dcp/torch_archive_writer.hpp>
#include <dopant/pickle/writer.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/child_processes.hpp>

#include <fcntl.h>
#include <stdio.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

namespace dopant::megatron_synthetic {
namespace {

namespace fs = std::filesystem;
using Tensor = sdk::CheckpointListing::Tensor;
using Chunk = sdk::CheckpointListing::Chunk;

constexpr int kIteration = 10;
constexpr const char* kIterationFolder = "iter_0000010";
constexpr const char* kDcp = "torch.distributed._shard.checkpoint.metadata";  // PyTorch 1.13's module
constexpr const char* kShardedTensor = "torch.distributed._shard.sharded_tensor.metadata";

// `count` elements from global index `first`, as `Element` (uint16_t or uint32_t).
template <typename Element>
void fill_row(Element* out, uint64_t key, uint64_t first, uint64_t count) {
  for (uint64_t j = 0; j < count; ++j) out[j] = static_cast<Element>(element_bits(key, first + j, sizeof(Element)));
}

// The chunk's elements, row-major over its own sizes, each taken from its global index.
std::vector<char> chunk_values(uint64_t seed, const Tensor& tensor, const Chunk& chunk) {
  const uint32_t bytes = static_cast<uint32_t>(sdk::element_bytes(tensor.dtype));
  const uint64_t key = tensor_key(seed, tensor.name);
  const size_t rank = tensor.shape.size();
  std::vector<uint64_t> stride(rank, 1);  // global row-major strides
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<uint64_t>(tensor.shape[d]);
  uint64_t elements = 1;
  for (const int64_t extent : chunk.sizes) elements *= static_cast<uint64_t>(extent);
  std::vector<char> out(elements * bytes);  // little-endian host: the bits are the bytes
  if (elements == 0) return out;
  const uint64_t row = static_cast<uint64_t>(chunk.sizes[rank - 1]);
  std::vector<int64_t> at(rank, 0);  // the chunk-local index of the current row
  for (uint64_t written = 0; written < elements; written += row) {
    uint64_t global = 0;
    for (size_t d = 0; d < rank; ++d) global += static_cast<uint64_t>(chunk.offsets[d] + at[d]) * stride[d];
    if (bytes == 2) {
      fill_row(reinterpret_cast<uint16_t*>(out.data()) + written, key, global, row);
    } else {
      fill_row(reinterpret_cast<uint32_t*>(out.data()) + written, key, global, row);
    }
    for (size_t d = rank - 1; d-- > 0;) {  // next row: odometer over all but the last axis
      if (++at[d] < chunk.sizes[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

// torch.Size(tuple): REDUCE of torch.Size on a 1-tuple holding the tuple of extents.
void size_object(pickle::Writer& p, const std::vector<int64_t>& values) {
  p.global("torch", "Size").mark().mark();
  for (const int64_t v : values) p.integer(v);
  p.tuple().tuple().reduce();
}

// A dataclass as pickle protocol 2+ stores it: NEWOBJ (class, ()), then BUILD with its state.
void new_dataclass(pickle::Writer& p, const char* module, const char* name) {
  p.global(module, name).empty_tuple().new_object();
}

struct Stored {
  std::string file;
  uint64_t offset = 0, length = 0;
};

std::string metadata_pickle(const std::vector<Tensor>& tensors, const std::vector<std::vector<Stored>>& stored) {
  pickle::Writer p(4);
  new_dataclass(p, kDcp, "Metadata");
  p.empty_dict().mark().string("state_dict_metadata").empty_dict().mark();
  for (const Tensor& tensor : tensors) {
    p.string(tensor.name);
    new_dataclass(p, kDcp, "TensorStorageMetadata");
    p.empty_dict().mark().string("properties");
    // TensorProperties.__getstate__ in 1.13: (dtype, layout, requires_grad, memory_format, pin_memory).
    new_dataclass(p, kShardedTensor, "TensorProperties");
    p.mark().global("torch", dcp::torch_dtype(tensor.dtype)->name);
    p.global("torch.serialization", "_get_layout").mark().string("torch.strided").tuple().reduce();
    p.boolean(false);
    p.global("builtins", "getattr").mark().global(kShardedTensor, "MEM_FORMAT_ENCODING");
    p.string("TORCH_CONTIGUOUS_FORMAT").tuple().reduce();
    p.boolean(false).tuple().build();
    p.string("size");
    size_object(p, tensor.shape);
    p.string("chunks").empty_list().mark();
    for (const Chunk& chunk : tensor.chunks) {
      new_dataclass(p, kDcp, "ChunkStorageMetadata");
      p.empty_dict().mark().string("offsets");
      size_object(p, chunk.offsets);
      p.string("sizes");
      size_object(p, chunk.sizes);
      p.set_items().build();
    }
    p.appends().set_items().build();
  }
  p.set_items().string("planner_data").none().string("storage_data").empty_dict().mark();
  for (size_t t = 0; t < tensors.size(); ++t) {
    for (size_t c = 0; c < tensors[t].chunks.size(); ++c) {
      new_dataclass(p, kDcp, "MetadataIndex");
      p.empty_dict().mark().string("fqn").string(tensors[t].name).string("offset");
      size_object(p, tensors[t].chunks[c].offsets);
      p.string("index").integer(0).set_items().build();
      new_dataclass(p, "torch.distributed._shard.checkpoint.filesystem", "_StorageInfo");
      const Stored& s = stored[t][c];
      p.empty_dict().mark().string("relative_path").string(s.file).string("offset").integer(static_cast<int64_t>(s.offset));
      p.string("length").integer(static_cast<int64_t>(s.length)).set_items().build();
    }
  }
  p.set_items().set_items().build();
  return p.finish();
}

// common.pt: torch.save({"args": argparse.Namespace(...), "checkpoint_version": 3.0, "iteration": 10}).
void write_common(const std::string& path, const MoeShape& s, const MoeDims& d) {
  pickle::Writer p(2);
  p.empty_dict().mark().string("args");
  p.global("argparse", "Namespace").empty_tuple().new_object().empty_dict().mark();
  const std::pair<const char*, int64_t> integers[] = {
      {"num_layers", s.layers},          {"hidden_size", s.hidden},           {"num_attention_heads", d.heads},
      {"vocab_size", s.vocab},           {"padded_vocab_size", d.padded_vocab}, {"num_experts", s.experts},
      {"ffn_hidden_size", d.ffn},        {"moe_ffn_hidden_size", d.moe_ffn},  {"q_lora_rank", d.q_lora},
      {"kv_lora_rank", d.kv_lora},       {"qk_head_dim", d.nope},             {"qk_pos_emb_head_dim", d.rope},
      {"v_head_dim", d.v_dim},           {"moe_shared_expert_intermediate_size", d.moe_ffn},
      {"expert_model_parallel_size", s.expert_parallel}, {"tensor_model_parallel_size", 2},
  };
  for (const auto& [name, value] : integers) p.string(name).integer(value);
  p.string("swiglu").boolean(true).string("multi_latent_attention").boolean(true);
  p.set_items().build();
  p.string("checkpoint_version").floating(3.0).string("iteration").integer(kIteration).set_items();
  const std::string pickle = p.finish();
  checkpoint_io::AppendFile file(path);
  dcp::TorchArchiveWriter archive(file);
  archive.add("data.pkl", pickle.data(), pickle.size());
  archive.finish();
  file.close();
}

void write_text(const std::string& path, const std::string& text) {
  checkpoint_io::AppendFile file(path);
  file.append(text.data(), text.size());
  file.close();
}

}  // namespace

Generated generate(const MoeShape& shape, const std::string& root) {
  const MoeDims dims = dims_of(shape);
  const sdk::CheckpointListing listing = plan_listing(shape);
  std::error_code error;
  if (fs::exists(fs::symlink_status(root, error))) sdk::fail(DPT_ALREADY_EXISTS, root + ": already exists");
  const fs::path target = fs::absolute(root, error).lexically_normal();
  const fs::path parent = target.parent_path();
  if (!fs::is_directory(parent, error)) sdk::fail(DPT_NOT_FOUND, root + ": folder " + parent.string() + " does not exist");
  TemporaryFolder folder(parent.string(), "." + target.filename().string() + ".partial");
  const fs::path iteration = fs::path(folder.path()) / kIterationFolder;
  fs::create_directory(iteration);

  Generated out{root, 0, 0};
  std::map<std::string, std::unique_ptr<checkpoint_io::AppendFile>> files;
  std::vector<std::vector<Stored>> stored;
  for (const Tensor& tensor : listing.tensors) {
    stored.emplace_back();
    for (const Chunk& chunk : tensor.chunks) {
      auto& file = files[chunk.file];
      if (!file) file = std::make_unique<checkpoint_io::AppendFile>((iteration / chunk.file).string());
      const std::vector<char> values = chunk_values(shape.seed, tensor, chunk);
      const uint64_t at = file->size();
      dcp::TorchArchiveWriter archive(*file);
      const std::string pickle = dcp::tensor_pickle(tensor.dtype, chunk.sizes, "0");
      archive.add("data.pkl", pickle.data(), pickle.size());
      archive.add("data/0", values.data(), values.size());
      stored.back().push_back({chunk.file, at, archive.finish()});
      out.tensor_bytes += values.size();
    }
  }
  for (auto& [name, file] : files) {
    out.file_bytes += file->size();
    file->close();
  }
  const std::string metadata = metadata_pickle(listing.tensors, stored);
  write_text((iteration / ".metadata").string(), metadata);
  const std::string note = R"({"sharded_backend": "torch_dist", "sharded_backend_version": 1, )"
                           R"("common_backend": "torch", "common_backend_version": 1})";
  write_text((iteration / "metadata.json").string(), note);
  write_common((iteration / "common.pt").string(), shape, dims);
  write_text((fs::path(folder.path()) / "latest_checkpointed_iteration.txt").string(), std::to_string(kIteration));
  for (const char* name : {".metadata", "metadata.json", "common.pt"}) out.file_bytes += fs::file_size(iteration / name);
  if (::renameat2(AT_FDCWD, folder.path().c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) != 0) {
    sdk::fail(errno == EEXIST ? DPT_ALREADY_EXISTS : DPT_INTERNAL,
              root + ": could not rename the generated checkpoint into place: " + std::strerror(errno));
  }
  folder.release();
  return out;
}

}  // namespace dopant::megatron_synthetic
