// The safetensors header: the dtype table, reading and checking the header of an untrusted
// file, and writing one. Every check names the file and the tensor or field it is about.
#include "dopant/safetensors/format.hpp"

#include <dopant/sdk/tensors.hpp>
#include <dopant/support/json_text.hpp>
#include <dopant/support/json_value.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace dopant::safetensors {
namespace {

// DLPack 1.1's type codes for the FP8 formats (dlpack.h's DLDataTypeCode).
constexpr uint8_t kDLFloat8E4M3FN = 10;
constexpr uint8_t kDLFloat8E5M2 = 12;

constexpr DType kDTypes[] = {
    {"F64", {kDLFloat, 64, 1}, 8},       {"F32", {kDLFloat, 32, 1}, 4},
    {"F16", {kDLFloat, 16, 1}, 2},       {"BF16", {kDLBfloat, 16, 1}, 2},
    {"I64", {kDLInt, 64, 1}, 8},         {"I32", {kDLInt, 32, 1}, 4},
    {"I16", {kDLInt, 16, 1}, 2},         {"I8", {kDLInt, 8, 1}, 1},
    {"U8", {kDLUInt, 8, 1}, 1},          {"BOOL", sdk::kBool, 1},
    {"F8_E4M3", {kDLFloat8E4M3FN, 8, 1}, 1}, {"F8_E5M2", {kDLFloat8E5M2, 8, 1}, 1},
};

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  sdk::fail(DPT_DATA_LOSS, file + ": " + what);
}

std::string tensor_label(const std::string& name) { return "tensor " + quote_name(name); }

std::string shape_text(std::vector<int64_t> shape) {
  DLTensor view{};
  view.ndim = static_cast<int32_t>(shape.size());
  view.shape = shape.data();
  return sdk::shape_string(view);
}

uint64_t unsigned_field(const JsonValue& value, const std::string& file, const std::string& what) {
  try {
    return value.unsigned_integer();
  } catch (const std::runtime_error&) {
    bad(file, what + " must be a non-negative integer");
  }
}

TensorEntry parse_entry(const std::string& name, const JsonValue& value, const std::string& file) {
  const std::string label = tensor_label(name);
  if (!value.is(JsonValue::Type::object)) bad(file, label + ": expected an object");
  TensorEntry entry;
  entry.name = name;
  for (const auto& [key, field] : value.object()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      bad(file, label + ": unknown field " + quote_name(key));
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!value.has(key)) bad(file, label + ": missing field `" + key + "`");
  }
  const JsonValue& dtype = value.at("dtype");
  if (!dtype.is(JsonValue::Type::string)) bad(file, label + ": `dtype` must be a string");
  entry.dtype = find_dtype(dtype.string());
  if (entry.dtype == nullptr) bad(file, label + ": unknown dtype " + quote_name(dtype.string()));

  const JsonValue& shape = value.at("shape");
  if (!shape.is(JsonValue::Type::array)) bad(file, label + ": `shape` must be an array");
  uint64_t elements = 1;
  for (const JsonValue& extent : shape.array()) {
    const uint64_t n = unsigned_field(extent, file, label + ": each `shape` extent");
    if (n > static_cast<uint64_t>(INT64_MAX)) bad(file, label + ": a `shape` extent is too large");
    entry.shape.push_back(static_cast<int64_t>(n));
    if (elements != 0 && (__builtin_mul_overflow(elements, n, &elements) || elements > sdk::kMaxTensorBytes)) {
      bad(file, label + ": `shape` spans more than 2^48 elements");
    }
  }
  const JsonValue& offsets = value.at("data_offsets");
  if (!offsets.is(JsonValue::Type::array) || offsets.array().size() != 2) {
    bad(file, label + ": `data_offsets` must be an array of two integers [begin, end]");
  }
  entry.begin = unsigned_field(offsets.array()[0], file, label + ": `data_offsets` begin");
  entry.end = unsigned_field(offsets.array()[1], file, label + ": `data_offsets` end");
  if (entry.end < entry.begin) {
    bad(file, label + ": `data_offsets` end " + std::to_string(entry.end) + " is before begin " +
                  std::to_string(entry.begin));
  }
  const uint64_t expected = elements * entry.dtype->bytes;  // both under 2^48 x 8: no wrap
  if (entry.end - entry.begin != expected) {
    bad(file, label + ": `data_offsets` span " + std::to_string(entry.end - entry.begin) + " bytes, but " +
                  entry.dtype->name + " of shape " + shape_text(entry.shape) + " needs " +
                  std::to_string(expected));
  }
  return entry;
}

sdk::Metadata parse_metadata(const JsonValue& value, const std::string& file) {
  if (!value.is(JsonValue::Type::object)) bad(file, "`__metadata__` must be an object of strings");
  sdk::Metadata metadata;
  for (const auto& [key, item] : value.object()) {
    if (!item.is(JsonValue::Type::string)) {
      bad(file, "`__metadata__` value of " + quote_name(key) + " must be a string");
    }
    metadata.emplace_back(key, item.string());
  }
  return metadata;
}

// The sorted offsets must tile [0, data_bytes): contiguous, non-overlapping, complete.
void check_tiling(const std::vector<TensorEntry>& tensors, uint64_t data_bytes, const std::string& file) {
  uint64_t at = 0;
  const TensorEntry* previous = nullptr;
  for (const TensorEntry& entry : tensors) {
    if (entry.begin < at) {
      bad(file, tensor_label(entry.name) + ": `data_offsets` [" + std::to_string(entry.begin) + ", " +
                    std::to_string(entry.end) + ") overlap " + tensor_label(previous->name));
    }
    if (entry.begin > at) {
      bad(file, tensor_label(entry.name) + ": `data_offsets` begin " + std::to_string(entry.begin) +
                    " leaves a gap after byte " + std::to_string(at) + " (offsets must be contiguous)");
    }
    at = entry.end;
    previous = &entry;
  }
  if (at != data_bytes) {
    bad(file, "the tensors cover " + std::to_string(at) + " bytes of data, but the file holds " +
                  std::to_string(data_bytes) + " after the header" +
                  (at > data_bytes ? " (truncated file?)" : ""));
  }
}

}  // namespace

const DType* find_dtype(std::string_view name) {
  for (const DType& dtype : kDTypes) {
    if (name == dtype.name) return &dtype;
  }
  return nullptr;
}

const DType* find_dtype(DLDataType dl) {
  for (const DType& dtype : kDTypes) {
    if (sdk::same_dtype(dl, dtype.dl)) return &dtype;
  }
  return nullptr;
}

uint64_t header_length(const unsigned char (&prefix)[kPrefixBytes], uint64_t file_size, const std::string& file) {
  if (file_size < kPrefixBytes) {
    bad(file, "only " + std::to_string(file_size) + " bytes, too short for the 8-byte header length");
  }
  uint64_t length = 0;
  for (int i = kPrefixBytes - 1; i >= 0; --i) length = (length << 8) | prefix[i];  // little-endian
  if (length > kMaxHeaderBytes) {
    bad(file, "header of " + std::to_string(length) + " bytes is over the format's limit of " +
                  std::to_string(kMaxHeaderBytes));
  }
  if (length > file_size - kPrefixBytes) {
    bad(file, "header of " + std::to_string(length) + " bytes runs past the end of the file (" +
                  std::to_string(file_size) + " bytes; truncated file?)");
  }
  return length;
}

Header parse_header(std::string_view json, uint64_t data_bytes, const std::string& file) {
  JsonValue document;
  try {
    document = parse_json(json);
  } catch (const std::runtime_error& e) {
    bad(file, std::string("header: ") + e.what());
  }
  if (!document.is(JsonValue::Type::object)) bad(file, "header: expected a JSON object");
  Header header;
  for (const auto& [name, value] : document.object()) {
    if (name == kMetadataKey) {
      header.metadata = parse_metadata(value, file);
    } else {
      header.tensors.push_back(parse_entry(name, value, file));
    }
  }
  std::stable_sort(header.tensors.begin(), header.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  check_tiling(header.tensors, data_bytes, file);
  return header;
}

Header parse_file(std::string_view bytes, const std::string& file) {
  unsigned char prefix[kPrefixBytes] = {};
  std::memcpy(prefix, bytes.data(), std::min<size_t>(bytes.size(), kPrefixBytes));
  const uint64_t length = header_length(prefix, bytes.size(), file);
  return parse_header(bytes.substr(kPrefixBytes, length), bytes.size() - kPrefixBytes - length, file);
}

std::string header_text(const Header& header) {
  std::string text = "{";
  if (!header.metadata.empty()) {
    text += json_string(kMetadataKey) + ":{";
    for (size_t i = 0; i < header.metadata.size(); ++i) {
      text += (i > 0 ? "," : "") + json_string(header.metadata[i].first) + ":" +
              json_string(header.metadata[i].second);
    }
    text += "}";
  }
  for (const TensorEntry& entry : header.tensors) {
    if (text.size() > 1) text += ",";
    text += json_string(entry.name) + ":{\"dtype\":" + json_string(entry.dtype->name) + ",\"shape\":[";
    for (size_t i = 0; i < entry.shape.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(entry.shape[i]);
    text += "],\"data_offsets\":[" + std::to_string(entry.begin) + "," + std::to_string(entry.end) + "]}";
  }
  text += "}";
  text.append((8 - (kPrefixBytes + text.size()) % 8) % 8, ' ');  // data starts 8-byte aligned
  return text;
}

}  // namespace dopant::safetensors
