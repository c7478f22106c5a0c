// Opening a safetensors checkpoint (a file, or a folder with one file or an index of
// shards), checking it whole, and positioned reads of its tensors.
#include "dopant/safetensors/reader.hpp"

#include "dopant/safetensors/format.hpp"

#include <dopant/checkpoint_io/input_file.hpp>

#include <dopant/support/json_value.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace dopant::safetensors {
namespace {

namespace fs = std::filesystem;

// The most bytes an index file may hold: a weight map of a few hundred thousand names.
constexpr uint64_t kMaxIndexBytes = 64ull << 20;

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  sdk::fail(DPT_DATA_LOSS, file + ": " + what);
}

// The index: tensor name -> shard file name, each file a plain name inside the folder.
std::map<std::string, std::string> read_index(const std::string& path, uint64_t& total_size) {
  const checkpoint_io::InputFile file(path);
  if (file.size() > kMaxIndexBytes) bad(path, "index of " + std::to_string(file.size()) + " bytes is over the limit of 64 MiB");
  std::string text(file.size(), '\0');
  file.read(text.data(), text.size(), 0);
  JsonValue index;
  try {
    index = parse_json(text);
  } catch (const std::runtime_error& e) {
    bad(path, e.what());
  }
  if (!index.is(JsonValue::Type::object) || !index.has("weight_map") ||
      !index.at("weight_map").is(JsonValue::Type::object)) {
    bad(path, "expected an object with a `weight_map` object");
  }
  total_size = 0;
  bool has_total = false;
  if (index.has("metadata")) {
    const JsonValue& metadata = index.at("metadata");
    if (!metadata.is(JsonValue::Type::object)) bad(path, "`metadata` must be an object");
    if (metadata.has("total_size")) {
      try {
        total_size = metadata.at("total_size").unsigned_integer();
      } catch (const std::runtime_error&) {
        bad(path, "`metadata.total_size` must be a non-negative integer");
      }
      has_total = true;
    }
  }
  if (!has_total) bad(path, "missing `metadata.total_size`");
  std::map<std::string, std::string> weight_map;
  for (const auto& [name, file] : index.at("weight_map").object()) {
    if (!file.is(JsonValue::Type::string)) bad(path, "`weight_map` entry " + quote_name(name) + " must be a string");
    const std::string& shard = file.string();
    if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos) {
      bad(path, "`weight_map` entry " + quote_name(name) + " names " + quote_name(shard) +
                    ", not a file in the checkpoint's folder");
    }
    weight_map.emplace(name, shard);
  }
  return weight_map;
}

}  // namespace

Reader::Reader(const std::string& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    open_file(path, path);
  } else if (const std::string index = (fs::path(path) / kIndexFile).string(); fs::exists(index, error)) {
    uint64_t total_size = 0;
    const auto weight_map = read_index(index, total_size);
    std::set<std::string> shards;
    for (const auto& [name, shard] : weight_map) shards.insert(shard);
    for (const std::string& shard : shards) open_file((fs::path(path) / shard).string(), shard);
    // The index and the shards must name the same tensors, each in the file it says.
    uint64_t bytes = 0;
    for (size_t t = 0; t < listing_.tensors.size(); ++t) {
      const auto& tensor = listing_.tensors[t];
      const auto found = weight_map.find(tensor.name);
      const std::string shard = fs::path(tensor.chunks[0].file).filename().string();
      if (found == weight_map.end()) bad(index, quote_name(tensor.name) + " of " + shard + " is missing from `weight_map`");
      if (found->second != shard) {
        bad(index, "`weight_map` puts " + quote_name(tensor.name) + " in " + found->second + ", but it is in " + shard);
      }
      bytes += tensor.chunks[0].byte_length;
    }
    if (listing_.tensors.size() != weight_map.size()) {  // a name the index has and no shard holds
      std::set<std::string> held;
      for (const auto& tensor : listing_.tensors) held.insert(tensor.name);
      for (const auto& [name, shard] : weight_map) {
        if (held.count(name) == 0) bad(index, "`weight_map` puts " + quote_name(name) + " in " + shard + ", which does not hold it");
      }
    }
    if (bytes != total_size) {
      bad(index, "`metadata.total_size` is " + std::to_string(total_size) + ", but the shards hold " +
                     std::to_string(bytes) + " bytes of tensors");
    }
  } else {
    open_file((fs::path(path) / kSingleFile).string(), kSingleFile);
  }
  listing_.seal();
}

Reader::~Reader() = default;

void Reader::open_file(const std::string& path, const std::string& shown) {
  files_.emplace_back(path);
  const checkpoint_io::InputFile& file = files_.back();
  unsigned char prefix[kPrefixBytes] = {};
  file.read(prefix, std::min(file.size(), kPrefixBytes), 0);
  const uint64_t length = header_length(prefix, file.size(), path);
  std::string json(length, '\0');
  file.read(json.data(), length, kPrefixBytes);
  const uint64_t data_start = kPrefixBytes + length;
  Header header = parse_header(json, file.size() - data_start, path);

  std::set<std::string> names;
  for (const auto& tensor : listing_.tensors) names.insert(tensor.name);
  for (TensorEntry& entry : header.tensors) {
    if (!names.insert(entry.name).second) {
      bad(path, "tensor " + quote_name(entry.name) + " is also stored in another shard (" + shown + ")");
    }
    sdk::CheckpointListing::Chunk chunk{std::vector<int64_t>(entry.shape.size(), 0), entry.shape, path,
                                        data_start + entry.begin, entry.end - entry.begin};
    listing_.tensors.push_back({std::move(entry.name), entry.dtype->dl, entry.shape, {std::move(chunk)}});
    file_of_.push_back(files_.size() - 1);
  }
  // Shards repeat the metadata (writers store it in each); a key may not change between them.
  for (auto& entry : header.metadata) {
    const auto same_key = [&](const auto& item) { return item.first == entry.first; };
    const auto known = std::find_if(listing_.metadata.begin(), listing_.metadata.end(), same_key);
    if (known == listing_.metadata.end()) {
      listing_.metadata.push_back(std::move(entry));
    } else if (known->second != entry.second) {
      bad(path, "`__metadata__` " + quote_name(entry.first) + " differs from the value in an earlier shard");
    }
  }
}

void Reader::read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const {
  files_[file_of_[tensor]].read(buffer, bytes, listing_.tensors[tensor].chunks[chunk].byte_offset);
}

}  // namespace dopant::safetensors
