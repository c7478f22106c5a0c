// DCP metadata -> tensors and chunks as byte ranges (see reader.hpp). The pickle's shape,
// from PyTorch's metadata.py and filesystem.py:
//   Metadata.state: {"state_dict_metadata": {fqn: TensorStorageMetadata | BytesStorageMetadata},
//                    "storage_data": {MetadataIndex: _StorageInfo}, "planner_data": ...}
//   TensorStorageMetadata.state: {"properties": TensorProperties (state: a tuple, dtype
//                    first, or a dict with "dtype"), "size": torch.Size, "chunks":
//                    [ChunkStorageMetadata {"offsets": torch.Size, "sizes": torch.Size}]}
//   MetadataIndex.state: {"fqn": str, "offset": torch.Size (the chunk's offsets), "index"}
//   _StorageInfo.state: {"relative_path": str, "offset": int, "length": int}  (bytes)
// Each stored item is torch.save(tensor): a zip with ARCHIVE/data.pkl calling
// torch._utils._rebuild_tensor_v2(persistent id ("storage", torch.XStorage, key, location,
// numel), storage_offset, size, stride, ...) and the storage's bytes in ARCHIVE/data/KEY.
#include "dopant/dcp/reader.hpp"

#include "dopant/dcp/torch_archive.hpp"

#include <dopant/pickle/pickle.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

namespace dopant::dcp {
namespace {

namespace fs = std::filesystem;
using pickle::Node;
using Kind = Node::Kind;

constexpr uint64_t kMaxMetadataBytes = 1ull << 30;  // the .metadata pickle
constexpr uint64_t kMaxItemPickleBytes = 1ull << 20; // one item's data.pkl

bool is_dcp(const std::string& qualified, const char* module_tail, const char* name) {
  for (const char* module : {"torch.distributed.checkpoint.", "torch.distributed._shard.checkpoint."}) {
    if (qualified == std::string(module) + module_tail + "." + name) return true;
  }
  return false;
}

class MetadataReader {
 public:
  explicit MetadataReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void bad(const std::string& what) const { sdk::fail(DPT_DATA_LOSS, file_ + ": " + what); }

  const Node& field(const Node& object, const char* key, const std::string& what) const {
    if (object.state == nullptr || object.state->kind != Kind::dict) bad(what + " has no attributes");
    const Node* value = object.state->find(key);
    if (value == nullptr) bad(what + " has no `" + key + "`");
    return *value;
  }
  int64_t integer(const Node& node, const std::string& what) const {
    if (node.kind != Kind::integer || node.integer < 0) bad(what + " must be a non-negative integer");
    return node.integer;
  }
  std::vector<int64_t> integers(const Node& tuple, const std::string& what) const {
    if (tuple.kind != Kind::tuple) bad(what + " must be a tuple of integers");
    std::vector<int64_t> values;
    for (const Node* item : tuple.items) values.push_back(integer(*item, what));
    return values;
  }
  std::vector<int64_t> torch_size(const Node& node, const std::string& what) const {
    if (node.kind != Kind::call || node.qualified_name() != "torch.Size" || node.items[1]->items.size() != 1) {
      bad(what + " must be a torch.Size");
    }
    return integers(*node.items[1]->items[0], what);
  }
  const std::string& text(const Node& node, const std::string& what) const {
    if (node.kind != Kind::string) bad(what + " must be a string");
    return node.text;
  }
  const TorchDType& dtype(const Node& properties, const std::string& what) const {
    const Node* dtype = nullptr;
    if (properties.state != nullptr && properties.state->kind == Kind::tuple && !properties.state->items.empty()) {
      dtype = properties.state->items[0];
    } else if (properties.state != nullptr) {
      dtype = properties.state->find("dtype");
    }
    if (dtype != nullptr && dtype->kind == Kind::global && dtype->text == "torch" && torch_dtype(dtype->name)) {
      return *torch_dtype(dtype->name);
    }
    bad(what + ": dtype " + (dtype != nullptr ? quote_name(dtype->qualified_name()) : std::string("(none)")) +
        " is not one dopant reads");
  }

 private:
  std::string file_;
};

std::string chunk_label(const std::string& name, const std::vector<int64_t>& offsets) {
  std::string text = "tensor " + quote_name(name) + " chunk at [";
  for (size_t i = 0; i < offsets.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(offsets[i]);
  return text + "]";
}

}  // namespace

const checkpoint_io::InputFile& Reader::file(const std::string& folder, const std::string& name) {
  const auto found = file_index_.find(name);
  if (found != file_index_.end()) return files_[found->second];
  files_.emplace_back((fs::path(folder) / name).string());
  file_index_.emplace(name, files_.size() - 1);
  return files_.back();
}

Reader::Reader(const std::string& folder) {
  const std::string metadata_path = (fs::path(folder) / ".metadata").string();
  const MetadataReader m(metadata_path);
  std::string bytes;
  {
    const checkpoint_io::InputFile metadata(metadata_path);
    if (metadata.size() > kMaxMetadataBytes) m.bad("over the limit of 1 GiB");
    bytes.resize(metadata.size());
    metadata.read(bytes.data(), bytes.size(), 0);
  }
  const pickle::Document document = pickle::read(bytes, metadata_path);
  const Node& root = document.root();
  if (root.kind != Kind::object || !is_dcp(root.qualified_name(), "metadata", "Metadata")) {
    m.bad("not a DCP Metadata object but " + quote_name(root.qualified_name()));
  }

  // storage_data: (fqn, chunk offsets) -> (file, offset, length).
  struct Stored {
    std::string file;
    uint64_t offset, length;
  };
  std::map<std::pair<std::string, std::vector<int64_t>>, Stored> stored;
  const Node& storage = m.field(root, "storage_data", "Metadata");
  if (storage.kind != Kind::dict) m.bad("`storage_data` must be a dict");
  for (size_t i = 0; i + 1 < storage.items.size(); i += 2) {
    const Node& index = *storage.items[i];
    const Node& info = *storage.items[i + 1];
    if (index.kind != Kind::object || !is_dcp(index.qualified_name(), "metadata", "MetadataIndex")) {
      m.bad("a `storage_data` key is not a MetadataIndex");
    }
    if (info.kind != Kind::object || !is_dcp(info.qualified_name(), "filesystem", "_StorageInfo")) {
      m.bad("a `storage_data` value is not a _StorageInfo");
    }
    const std::string& fqn = m.text(m.field(index, "fqn", "MetadataIndex"), "MetadataIndex.fqn");
    const Node& offset = m.field(index, "offset", "MetadataIndex of " + quote_name(fqn));
    const std::vector<int64_t> offsets =
        offset.kind == Kind::none ? std::vector<int64_t>{} : m.torch_size(offset, "MetadataIndex.offset");
    const std::string what = "storage of " + chunk_label(fqn, offsets);
    const std::string& path = m.text(m.field(info, "relative_path", what), what + ": relative_path");
    if (path.empty() || path.find('/') != std::string::npos || path == "." || path == "..") {
      m.bad(what + ": relative_path " + quote_name(path) + " is not a file in the checkpoint's folder");
    }
    stored[{fqn, offsets}] = Stored{path, static_cast<uint64_t>(m.integer(m.field(info, "offset", what), what + ": offset")),
                                    static_cast<uint64_t>(m.integer(m.field(info, "length", what), what + ": length"))};
  }

  const Node& tensors = m.field(root, "state_dict_metadata", "Metadata");
  if (tensors.kind != Kind::dict) m.bad("`state_dict_metadata` must be a dict");
  std::set<std::string> names;
  for (size_t i = 0; i + 1 < tensors.items.size(); i += 2) {
    const std::string& name = m.text(*tensors.items[i], "a `state_dict_metadata` key");
    const Node& entry = *tensors.items[i + 1];
    if (entry.kind == Kind::object && is_dcp(entry.qualified_name(), "metadata", "BytesStorageMetadata")) continue;
    const std::string label = "tensor " + quote_name(name);
    if (entry.kind != Kind::object || !is_dcp(entry.qualified_name(), "metadata", "TensorStorageMetadata")) {
      m.bad(label + " is neither TensorStorageMetadata nor BytesStorageMetadata");
    }
    if (!names.insert(name).second) m.bad(label + " is listed twice");
    const TorchDType& dtype = m.dtype(m.field(entry, "properties", label), label);
    sdk::CheckpointListing::Tensor tensor{name, dtype.dl, m.torch_size(m.field(entry, "size", label), label + ": size"), {}};
    const Node& chunks = m.field(entry, "chunks", label);
    if (chunks.kind != Kind::list) m.bad(label + ": `chunks` must be a list");
    std::vector<size_t> files_of_chunks;
    uint64_t covered = 0;
    for (const Node* chunk_node : chunks.items) {
      sdk::CheckpointListing::Chunk chunk;
      chunk.offsets = m.torch_size(m.field(*chunk_node, "offsets", label), label + ": chunk offsets");
      chunk.sizes = m.torch_size(m.field(*chunk_node, "sizes", label), label + ": chunk sizes");
      const std::string what = chunk_label(name, chunk.offsets);
      if (chunk.offsets.size() != tensor.shape.size() || chunk.sizes.size() != tensor.shape.size()) {
        m.bad(what + ": offsets and sizes must have the tensor's " + std::to_string(tensor.shape.size()) + " dimensions");
      }
      uint64_t elements = 1;
      for (size_t d = 0; d < tensor.shape.size(); ++d) {
        if (chunk.offsets[d] > tensor.shape[d] || chunk.sizes[d] > tensor.shape[d] - chunk.offsets[d]) {
          m.bad(what + ": reaches outside the tensor's shape");
        }
        elements *= static_cast<uint64_t>(chunk.sizes[d]);  // each at most the shape's extent
      }
      covered += elements;
      const auto where = stored.find({name, chunk.offsets});
      if (where == stored.end()) m.bad(what + " has no `storage_data` entry");
      const Stored& item = where->second;
      const checkpoint_io::InputFile& input = file(folder, item.file);
      if (item.offset > input.size() || item.length > input.size() - item.offset) {
        sdk::fail(DPT_DATA_LOSS, input.path() + ": the metadata puts " + what + " at bytes [" +
                                     std::to_string(item.offset) + ", " + std::to_string(item.offset + item.length) +
                                     "), outside the file (" + std::to_string(input.size()) + " bytes)");
      }
      // The item: torch.save(tensor) as a zip inside [offset, offset + length).
      const auto entries = archive_entries(input, item.offset, item.length);
      const auto pickle_entry = std::find_if(entries.begin(), entries.end(), [](const auto& e) {
        return e.first.size() >= 8 && e.first.compare(e.first.size() - 8, 8, "data.pkl") == 0;
      });
      const std::string item_what = input.path() + ": item of " + what;
      if (pickle_entry == entries.end()) sdk::fail(DPT_DATA_LOSS, item_what + ": no data.pkl in its archive");
      if (pickle_entry->second.length > kMaxItemPickleBytes) sdk::fail(DPT_DATA_LOSS, item_what + ": data.pkl over 1 MiB");
      std::string item_pickle(pickle_entry->second.length, '\0');
      input.read(item_pickle.data(), item_pickle.size(), pickle_entry->second.offset);
      const pickle::Document rebuilt = pickle::read(item_pickle, item_what);
      const StoredTensor item_tensor = stored_tensor(rebuilt.root(), entries, pickle_entry->first, item_what);
      const MetadataReader r(item_what);
      if (item_tensor.dtype != &dtype) {
        r.bad("dtype mismatch: the metadata says " + std::string(dtype.name) + ", the stored item is torch." +
              item_tensor.dtype->storage);
      }
      if (item_tensor.shape != chunk.sizes) r.bad("its shape differs from the chunk's sizes in the metadata");
      chunk.file = input.path();
      chunk.byte_offset = item_tensor.byte_offset;
      chunk.byte_length = item_tensor.byte_length;
      files_of_chunks.push_back(file_index_.at(item.file));
      tensor.chunks.push_back(std::move(chunk));
    }
    uint64_t total = 1;
    for (const int64_t extent : tensor.shape) total *= static_cast<uint64_t>(extent);
    if (covered != total) {
      m.bad(label + ": its chunks cover " + std::to_string(covered) + " of its " + std::to_string(total) + " elements");
    }
    listing_.tensors.push_back(std::move(tensor));
    file_of_.push_back(std::move(files_of_chunks));
  }
  listing_.seal();
}

void Reader::read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const {
  files_[file_of_[tensor][chunk]].read(buffer, bytes, listing_.tensors[tensor].chunks[chunk].byte_offset);
}

}  // namespace dopant::dcp
