// Wire formats of routing replay payloads: the expert ids an inference engine chose for a
// run of token rows, every MoE layer, top_k per layer, as one [rows, layers, top_k] int32
// array in row-major order.
//
//   sglang  base64 (RFC 4648, '+' '/', '=' padding) of the little-endian int32 array, as
//           SGLang returns it in meta_info.routed_experts. Shape and expert count travel
//           beside it, so the decoder is told layers, top_k and experts.
//   packed  a 40-byte header, ids of ceil(log2 experts) bits each, a CRC32C:
//             0  char[4] "DPRP"        20  u32 reserved, 0
//             4  u16 version = 1       24  u64 start_row
//             6  u16 bits per id       32  u64 rows
//             8  u32 experts           40  payload: id i in bits [i*b, (i+1)*b), least
//            12  u32 layers                significant first, bytes little-endian; the
//            16  u32 top_k                 unused high bits of the last byte are 0
//           end  u32 CRC32C (Castagnoli) of the header and payload
//           All integers little-endian. experts = 1 gives 0 bits per id and no payload.
//
// Decoders trust nothing: a malformed payload throws sdk::Error (DPT_INVALID_ARGUMENT, or
// DPT_DATA_LOSS for a checksum mismatch) with a message that says what is wrong and where;
// they never read out of bounds. Both encodings are canonical: a payload that decodes
// re-encodes to the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::replay_codec {

// Ids of token rows [start_row, start_row + rows()) of one session.
struct RoutingRows {
  uint64_t start_row = 0;
  uint32_t layers = 1;
  uint32_t top_k = 1;
  uint32_t experts = 1;       // every id is in [0, experts)
  std::vector<int32_t> ids;   // [rows, layers, top_k] int32

  uint64_t rows() const { return ids.size() / (uint64_t{layers} * top_k); }
  bool operator==(const RoutingRows&) const = default;
};

// The most experts a payload may name: ids are non-negative int32.
inline constexpr uint32_t kMaxExperts = uint32_t{1} << 31;

// ceil(log2(experts)): bits that hold every id in [0, experts); 0 for one expert.
uint32_t bits_per_id(uint32_t experts);

// base64 of `ids` as little-endian int32.
std::string encode_sglang(std::span<const int32_t> ids);

// The [rows, layers, top_k] ids of a base64 payload; rows follows from its length.
std::vector<int32_t> decode_sglang(std::string_view text, uint32_t layers, uint32_t top_k, uint32_t experts);

// Packed bytes of `rows`; refuses ids outside [0, experts) or not whole rows.
std::vector<uint8_t> encode_packed(const RoutingRows& rows);

// Header size and trailer size of a packed payload, in bytes.
inline constexpr size_t kPackedHeaderBytes = 40;
inline constexpr size_t kPackedChecksumBytes = 4;

// The most ids a decoded payload may hold unless the caller says otherwise: 2^28 (1 GiB of
// int32), beyond a 128K-token turn of a 61-layer top-8 model. The bound matters for one
// expert, where ids take no bytes and a 44-byte header could claim any row count.
inline constexpr uint64_t kDefaultMaxIds = uint64_t{1} << 28;

// The rows of a packed payload, refused when it holds more than `max_ids` ids.
RoutingRows decode_packed(std::span<const uint8_t> bytes, uint64_t max_ids = kDefaultMaxIds);

// CRC32C (Castagnoli, reflected, initial and final xor 0xFFFFFFFF) of `bytes`.
uint32_t crc32c(std::span<const uint8_t> bytes);

}  // namespace dopant::replay_codec
