// Finding the entries of a stored zip inside a byte range: the end-of-central-directory
// record (ZIP64 when the counts overflow), the central directory, and each local header,
// every offset checked against the range. Formats from PKWARE's APPNOTE.TXT; all fields
// little-endian. Then a data.pkl tensor record located in its storage entry.
#include "dopant/dcp/torch_archive.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace dopant::dcp {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;         // 30 bytes + name + extra
constexpr uint32_t kCentralHeader = 0x02014b50;       // 46 bytes + name + extra + comment
constexpr uint32_t kEndOfDirectory = 0x06054b50;      // 22 bytes + comment
constexpr uint32_t kZip64Locator = 0x07064b50;        // 20 bytes, just before the end record
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50; // 56 bytes
constexpr uint16_t kZip64Extra = 0x0001;

[[noreturn]] void bad(const std::string& file, uint64_t offset, const std::string& what) {
  sdk::fail(DPT_DATA_LOSS, file + ": archive at byte " + std::to_string(offset) + ": " + what);
}

uint64_t le(const unsigned char* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

using Kind = pickle::Node::Kind;

constexpr TorchDType kDTypes[] = {
    {"float64", "DoubleStorage", {kDLFloat, 64, 1}}, {"float32", "FloatStorage", sdk::kFloat32},
    {"float16", "HalfStorage", sdk::kFloat16},       {"bfloat16", "BFloat16Storage", sdk::kBFloat16},
    {"int64", "LongStorage", sdk::kInt64},           {"int32", "IntStorage", sdk::kInt32},
    {"int16", "ShortStorage", {kDLInt, 16, 1}},      {"int8", "CharStorage", {kDLInt, 8, 1}},
    {"uint8", "ByteStorage", {kDLUInt, 8, 1}},       {"bool", "BoolStorage", sdk::kBool},
};

std::vector<int64_t> non_negative_integers(const pickle::Node& tuple, const std::string& what) {
  if (tuple.kind != Kind::tuple) sdk::fail(DPT_DATA_LOSS, what + " must be a tuple of integers");
  std::vector<int64_t> values;
  for (const pickle::Node* item : tuple.items) {
    if (item->kind != Kind::integer || item->integer < 0) sdk::fail(DPT_DATA_LOSS, what + " must be non-negative integers");
    values.push_back(item->integer);
  }
  return values;
}

}  // namespace

const TorchDType* torch_dtype(std::string_view name) {
  for (const TorchDType& known : kDTypes) {
    if (name == known.name) return &known;
  }
  return nullptr;
}

const TorchDType* torch_dtype(DLDataType dtype) {
  for (const TorchDType& known : kDTypes) {
    if (known.dl.code == dtype.code && known.dl.bits == dtype.bits && known.dl.lanes == dtype.lanes) return &known;
  }
  return nullptr;
}

bool is_stored_tensor(const pickle::Node& node) {
  return node.kind == Kind::call && node.qualified_name() == "torch._utils._rebuild_tensor_v2";
}

StoredTensor stored_tensor(const pickle::Node& call, const std::map<std::string, ArchiveEntry>& entries,
                           const std::string& pickle_entry, const std::string& what) {
  const auto bad = [&](const std::string& why) { sdk::fail(DPT_DATA_LOSS, what + ": " + why); };
  if (!is_stored_tensor(call) || call.items[1]->items.size() < 4 ||
      call.items[1]->items[0]->kind != Kind::persistent_id) {
    bad("not a torch.save of one tensor");
  }
  const auto& args = call.items[1]->items;
  const pickle::Node& id = *args[0]->items[0];  // ("storage", torch.XStorage, key, location, numel)
  if (id.kind != Kind::tuple || id.items.size() != 5 || id.items[1]->kind != Kind::global ||
      id.items[2]->kind != Kind::string || id.items[4]->kind != Kind::integer || id.items[4]->integer < 0 ||
      args[1]->kind != Kind::integer || args[1]->integer < 0) {
    bad("bad storage id");
  }
  StoredTensor tensor;
  for (const TorchDType& known : kDTypes) {
    if (id.items[1]->text == "torch" && id.items[1]->name == known.storage) tensor.dtype = &known;
  }
  if (tensor.dtype == nullptr) bad("storage type " + quote_name(id.items[1]->qualified_name()) + " is not one dopant reads");
  const uint64_t item_bytes = sdk::element_bytes(tensor.dtype->dl);
  const uint64_t storage_elements = static_cast<uint64_t>(id.items[4]->integer);
  const uint64_t storage_offset = static_cast<uint64_t>(args[1]->integer);
  tensor.shape = non_negative_integers(*args[2], what + ": size");
  const std::vector<int64_t> strides = non_negative_integers(*args[3], what + ": stride");
  if (strides.size() != tensor.shape.size()) bad("its strides and shape differ in length");
  // Row-major: stride[d] = product of shape[d+1..]; a dimension of extent 1 may have any stride.
  uint64_t elements = 1;
  for (size_t d = tensor.shape.size(); d-- > 0;) {
    if (tensor.shape[d] != 1 && static_cast<uint64_t>(strides[d]) != elements) bad("its strides are not row-major");
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(tensor.shape[d]), &elements)) bad("its size overflows");
  }
  const std::string data_name = pickle_entry.substr(0, pickle_entry.size() - 8) + "data/" + id.items[2]->text;
  const auto data = entries.find(data_name);
  if (data == entries.end()) bad("no " + quote_name(data_name) + " in its archive");
  if (storage_offset > storage_elements || elements > storage_elements - storage_offset ||
      data->second.length / item_bytes != storage_elements || data->second.length % item_bytes != 0) {
    bad("its storage of " + std::to_string(data->second.length) + " bytes does not hold the tensor");
  }
  tensor.byte_offset = data->second.offset + storage_offset * item_bytes;
  tensor.byte_length = elements * item_bytes;
  return tensor;
}

std::map<std::string, ArchiveEntry> archive_entries(const checkpoint_io::InputFile& input, uint64_t offset,
                                                    uint64_t length) {
  const std::string& file = input.path();
  const auto read_range = [&](uint64_t at, uint64_t bytes) {  // `at` relative to the archive
    if (at > length || bytes > length - at) bad(file, offset, "a record reaches past the end of the archive");
    std::vector<unsigned char> data(bytes);
    input.read(data.data(), bytes, offset + at);
    return data;
  };
  // The end record is within the last 22 + 65535 bytes (its comment is at most that long).
  // PyTorch writes no comment, so the last 22 bytes are tried first: a checkpoint has one
  // archive per chunk, and reading 64 KiB of each would cost more than the chunks' headers.
  uint64_t tail_bytes = std::min<uint64_t>(length, 22);
  std::vector<unsigned char> tail = read_range(length - tail_bytes, tail_bytes);
  int64_t end_at = -1;
  for (int attempt = 0; attempt < 2 && end_at < 0; ++attempt) {
    if (attempt == 1) {
      tail_bytes = std::min<uint64_t>(length, 22 + 65535);
      tail = read_range(length - tail_bytes, tail_bytes);
    }
    for (int64_t i = static_cast<int64_t>(tail_bytes) - 22; i >= 0; --i) {
      if (le(&tail[static_cast<size_t>(i)], 4) == kEndOfDirectory) {
        end_at = i;
        break;
      }
    }
  }
  if (end_at < 0) bad(file, offset, "no zip end-of-directory record (not a torch.save archive?)");
  const unsigned char* end = &tail[static_cast<size_t>(end_at)];
  uint64_t count = le(end + 10, 2), directory_bytes = le(end + 12, 4), directory_at = le(end + 16, 4);
  if (count == 0xFFFF || directory_bytes == 0xFFFFFFFF || directory_at == 0xFFFFFFFF) {
    const uint64_t end_offset = length - tail_bytes + static_cast<uint64_t>(end_at);
    if (end_offset < 20) bad(file, offset, "ZIP64 archive without its locator");
    const std::vector<unsigned char> locator = read_range(end_offset - 20, 20);
    if (le(locator.data(), 4) != kZip64Locator) bad(file, offset, "ZIP64 archive without its locator");
    const std::vector<unsigned char> record = read_range(le(locator.data() + 8, 8), 56);
    if (le(record.data(), 4) != kZip64EndOfDirectory) bad(file, offset, "bad ZIP64 end-of-directory record");
    count = le(record.data() + 32, 8);
    directory_bytes = le(record.data() + 40, 8);
    directory_at = le(record.data() + 48, 8);
  }
  const std::vector<unsigned char> directory = read_range(directory_at, directory_bytes);
  std::map<std::string, ArchiveEntry> entries;
  size_t at = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (directory.size() - at < 46 || le(&directory[at], 4) != kCentralHeader) bad(file, offset, "bad central directory entry");
    const unsigned char* entry = &directory[at];
    const uint64_t method = le(entry + 10, 2), name_bytes = le(entry + 28, 2), extra_bytes = le(entry + 30, 2),
                   comment_bytes = le(entry + 32, 2);
    uint64_t compressed = le(entry + 20, 4), size = le(entry + 24, 4), local_at = le(entry + 42, 4);
    if (directory.size() - at - 46 < name_bytes + extra_bytes + comment_bytes) bad(file, offset, "bad central directory entry");
    const std::string name(reinterpret_cast<const char*>(entry + 46), name_bytes);
    // ZIP64 extra field: the 8-byte values of whichever fields above read 0xFFFFFFFF, in order.
    const unsigned char* extra = entry + 46 + name_bytes;
    for (uint64_t e = 0; e + 4 <= extra_bytes;) {
      const uint64_t id = le(extra + e, 2), bytes = le(extra + e + 2, 2);
      if (e + 4 + bytes > extra_bytes) bad(file, offset, "entry `" + name + "`: bad extra field");
      if (id == kZip64Extra) {
        uint64_t field = e + 4;
        for (uint64_t* value : {&size, &compressed, &local_at}) {
          if (*value != 0xFFFFFFFF) continue;
          if (field + 8 > e + 4 + bytes) bad(file, offset, "entry `" + name + "`: short ZIP64 field");
          *value = le(extra + field, 8);
          field += 8;
        }
      }
      e += 4 + bytes;
    }
    if (method != 0 || compressed != size) bad(file, offset, "entry `" + name + "` is compressed; torch.save stores entries");
    const std::vector<unsigned char> local = read_range(local_at, 30);
    if (le(local.data(), 4) != kLocalHeader) bad(file, offset, "entry `" + name + "`: bad local header");
    const uint64_t data_at = local_at + 30 + le(local.data() + 26, 2) + le(local.data() + 28, 2);
    if (data_at > length || size > length - data_at) bad(file, offset, "entry `" + name + "` reaches past the end of the archive");
    entries[name] = ArchiveEntry{offset + data_at, size};
    at += 46 + name_bytes + extra_bytes + comment_bytes;
  }
  return entries;
}

}  // namespace dopant::dcp
