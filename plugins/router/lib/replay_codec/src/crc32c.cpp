// CRC32C (Castagnoli polynomial 0x82F63B78, reflected), the checksum of packed payloads:
// slicing-by-8 tables built at compile time, eight bytes per step.
#include <array>
#include <cstring>

#include "dopant/replay_codec/codecs.hpp"

namespace dopant::replay_codec {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables kTables = [] {
  Tables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    tables[0][byte] = crc;
  }
  // tables[k][b]: the CRC of byte b followed by k zero bytes.
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xFF];
    }
  }
  return tables;
}();

}  // namespace

uint32_t crc32c(std::span<const uint8_t> bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  const uint8_t* p = bytes.data();
  size_t left = bytes.size();
  for (; left >= 8; left -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // little-endian hosts only
    word ^= crc;
    crc = kTables[7][word & 0xFF] ^ kTables[6][word >> 8 & 0xFF] ^ kTables[5][word >> 16 & 0xFF] ^
          kTables[4][word >> 24 & 0xFF] ^ kTables[3][word >> 32 & 0xFF] ^ kTables[2][word >> 40 & 0xFF] ^
          kTables[1][word >> 48 & 0xFF] ^ kTables[0][word >> 56];
  }
  for (; left > 0; --left, ++p) crc = (crc >> 8) ^ kTables[0][(crc ^ *p) & 0xFF];
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace dopant::replay_codec
