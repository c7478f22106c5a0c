// safetensors, the format's facts in one place: its dtypes, the limit on its header, and the
// header itself (read and checked, or written).
//
// A file is: u64 little-endian N; N bytes of JSON (an object, padded at the end with spaces
// by writers so the data starts 8-byte aligned); the data section. The object maps each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]}, offsets in bytes from the
// first byte after the header, and may hold "__metadata__", a map of string to string. The
// offsets of all tensors, sorted, must tile the data section exactly: the first begins at
// 0, each begins where the previous ends, the last ends at the end of the file, and
// end - begin = product(shape) x the dtype's bytes.
#pragma once

#include <dopant/sdk/checkpoint.hpp>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::safetensors {

// The most bytes a header may hold (the spec's limit, which the reference reader enforces).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// Bytes of the length prefix (u64 little-endian) before the header.
inline constexpr uint64_t kPrefixBytes = 8;
// The metadata key of the header object.
inline constexpr std::string_view kMetadataKey = "__metadata__";

struct DType {
  const char* name;  // as the header spells it: "F32", "BF16", "F8_E4M3", ...
  DLDataType dl;     // DLPack's code for it (FP8 codes are DLPack 1.1's, beyond Debian's 0.6)
  uint32_t bytes;    // per element
};

// The dtype the header names `name`, or nullptr when the format has none by that name.
const DType* find_dtype(std::string_view name);
// The safetensors dtype of a DLPack type, or nullptr when the format cannot store it.
const DType* find_dtype(DLDataType dl);

struct TensorEntry {
  std::string name;
  const DType* dtype = nullptr;
  std::vector<int64_t> shape;  // elements
  uint64_t begin = 0, end = 0; // bytes, from the first byte after the header
};

struct Header {
  std::vector<TensorEntry> tensors;  // in the order of the data section
  sdk::Metadata metadata;            // in key order
};

// N from the 8-byte prefix of a file of `file_size` bytes; refuses, naming `file`, an N
// over kMaxHeaderBytes or past the end of the file. Errors are sdk::Error(DPT_DATA_LOSS).
uint64_t header_length(const unsigned char (&prefix)[kPrefixBytes], uint64_t file_size, const std::string& file);

// Parses and checks the JSON header of `file`, whose data section holds `data_bytes` bytes.
// Every problem is an sdk::Error(DPT_DATA_LOSS) naming the file and the tensor or field.
Header parse_header(std::string_view json, uint64_t data_bytes, const std::string& file);

// parse_header over a whole file held in memory (its prefix, header and data section).
Header parse_file(std::string_view bytes, const std::string& file);

// The header text for tensors laid out in the given order, padded with spaces so that the
// data section starts at a multiple of 8 bytes.
std::string header_text(const Header& header);

}  // namespace dopant::safetensors
