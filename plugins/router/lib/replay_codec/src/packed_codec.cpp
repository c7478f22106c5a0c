// The packed codec (layout in codecs.hpp): header, ids bit-packed least significant first
// through a 64-bit accumulator, CRC32C trailer. The decoder checks, in this order: the
// size can hold header and trailer, magic, version, reserved, shape, bits per id, payload
// length, the id count against the caller's bound, checksum, zero trailing bits, ids
// below the expert count.
#include <dopant/sdk/errors.hpp>

#include <bit>
#include <cstring>
#include <string>

#include "dopant/replay_codec/codecs.hpp"
#include "id_checks.hpp"

namespace dopant::replay_codec {
namespace {

constexpr char kMagic[4] = {'D', 'P', 'R', 'P'};
constexpr uint16_t kVersion = 1;

[[noreturn]] void refuse(const std::string& what, dpt_code code = DPT_INVALID_ARGUMENT) {
  sdk::fail(code, "packed payload: " + what);
}

template <typename T>
T load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof value);  // little-endian hosts only
  return value;
}

template <typename T>
void store(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof value);
}

// Bytes of `count` ids of `bits` bits, or false when that passes 2^62 bits.
bool payload_bytes(uint64_t count, uint32_t bits, uint64_t* out) {
  uint64_t total_bits = 0;
  if (__builtin_mul_overflow(count, uint64_t{bits}, &total_bits) || total_bits > (uint64_t{1} << 62)) return false;
  *out = (total_bits + 7) / 8;
  return true;
}

}  // namespace

uint32_t bits_per_id(uint32_t experts) {
  return experts <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(experts - 1));
}

std::vector<uint8_t> encode_packed(const RoutingRows& rows) {
  detail::check_shape("packed encode", rows.layers, rows.top_k, rows.experts);
  if (rows.ids.size() % (uint64_t{rows.layers} * rows.top_k) != 0) {
    sdk::fail(DPT_INVALID_ARGUMENT, "packed encode: " + std::to_string(rows.ids.size()) +
                                        " ids are not whole rows of layers x top_k");
  }
  detail::check_ids("packed encode", rows.ids, rows.layers, rows.top_k, rows.experts);
  const uint32_t bits = bits_per_id(rows.experts);
  const uint64_t bytes = (rows.ids.size() * bits + 7) / 8;
  std::vector<uint8_t> out(kPackedHeaderBytes + bytes + kPackedChecksumBytes, 0);
  std::memcpy(out.data(), kMagic, 4);
  store<uint16_t>(&out[4], kVersion);
  store<uint16_t>(&out[6], static_cast<uint16_t>(bits));
  store<uint32_t>(&out[8], rows.experts);
  store<uint32_t>(&out[12], rows.layers);
  store<uint32_t>(&out[16], rows.top_k);
  store<uint64_t>(&out[24], rows.start_row);
  store<uint64_t>(&out[32], rows.rows());
  // Append each id's `bits` bits above those already held; flush whole bytes.
  uint8_t* p = out.data() + kPackedHeaderBytes;
  uint64_t held = 0;
  uint32_t held_bits = 0;
  for (int32_t id : rows.ids) {
    held |= static_cast<uint64_t>(static_cast<uint32_t>(id)) << held_bits;
    held_bits += bits;
    for (; held_bits >= 8; held_bits -= 8, held >>= 8) *p++ = static_cast<uint8_t>(held);
  }
  if (held_bits > 0) *p++ = static_cast<uint8_t>(held);
  const size_t covered = out.size() - kPackedChecksumBytes;
  store<uint32_t>(&out[covered], crc32c({out.data(), covered}));
  return out;
}

RoutingRows decode_packed(std::span<const uint8_t> in, uint64_t max_ids) {
  if (in.size() < kPackedHeaderBytes + kPackedChecksumBytes) {
    refuse("truncated: " + std::to_string(in.size()) + " bytes, a header and checksum need " +
           std::to_string(kPackedHeaderBytes + kPackedChecksumBytes));
  }
  const uint8_t* h = in.data();
  if (std::memcmp(h, kMagic, 4) != 0) refuse("bad magic (not \"DPRP\")");
  if (load<uint16_t>(h + 4) != kVersion) refuse("version " + std::to_string(load<uint16_t>(h + 4)) + ", this reader knows 1");
  if (load<uint32_t>(h + 20) != 0) refuse("reserved header field is not 0");
  RoutingRows rows;
  rows.experts = load<uint32_t>(h + 8);
  rows.layers = load<uint32_t>(h + 12);
  rows.top_k = load<uint32_t>(h + 16);
  rows.start_row = load<uint64_t>(h + 24);
  const uint64_t row_count = load<uint64_t>(h + 32);
  detail::check_shape("packed payload", rows.layers, rows.top_k, rows.experts);
  const uint32_t bits = bits_per_id(rows.experts);
  if (load<uint16_t>(h + 6) != bits) {
    refuse(std::to_string(load<uint16_t>(h + 6)) + " bits per id, but " + std::to_string(rows.experts) +
           " experts take " + std::to_string(bits));
  }
  uint64_t count = 0, bytes = 0;
  const uint64_t available = in.size() - kPackedHeaderBytes - kPackedChecksumBytes;
  if (__builtin_mul_overflow(row_count, uint64_t{rows.layers} * rows.top_k, &count) ||
      !payload_bytes(count, bits, &bytes) || bytes != available) {
    refuse(std::to_string(available) + " payload bytes do not hold " + std::to_string(row_count) + " rows of " +
           std::to_string(rows.layers) + " layers x " + std::to_string(rows.top_k) + " ids of " +
           std::to_string(bits) + " bits");
  }
  if (count > max_ids) {
    refuse(std::to_string(row_count) + " rows hold " + std::to_string(count) + " ids, more than the " +
           std::to_string(max_ids) + " this reader accepts");
  }
  const size_t covered = in.size() - kPackedChecksumBytes;
  const uint32_t stored = load<uint32_t>(h + covered), computed = crc32c(in.first(covered));
  if (stored != computed) {
    refuse("checksum mismatch: stored " + std::to_string(stored) + ", computed " + std::to_string(computed),
           DPT_DATA_LOSS);
  }
  rows.ids.resize(count);  // [rows, layers, top_k] int32
  const uint8_t* p = h + kPackedHeaderBytes;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t held = 0;
  uint32_t held_bits = 0;
  for (int32_t& id : rows.ids) {
    for (; held_bits < bits; held_bits += 8) held |= static_cast<uint64_t>(*p++) << held_bits;
    id = static_cast<int32_t>(held & mask);
    held >>= bits;
    held_bits -= bits;
  }
  if (held != 0) refuse("the bits after the last id are not zero (not a canonical encoding)");
  detail::check_ids("packed payload", rows.ids, rows.layers, rows.top_k, rows.experts);
  return rows;
}

}  // namespace dopant::replay_codec
