// The sglang codec: strict base64 (RFC 4648 alphabet, '=' padding, no whitespace, zero
// padding bits) over little-endian int32 ids, shape checked against layers and top_k.
#include <dopant/sdk/errors.hpp>

#include <array>
#include <cstring>
#include <string>

#include "dopant/replay_codec/codecs.hpp"
#include "id_checks.hpp"

namespace dopant::replay_codec {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Value of each base64 character, 0xFF for the others ('=' included).
constexpr std::array<uint8_t, 256> kValues = [] {
  std::array<uint8_t, 256> values{};
  values.fill(0xFF);
  for (uint8_t i = 0; i < 64; ++i) values[static_cast<uint8_t>(kAlphabet[i])] = i;
  return values;
}();

[[noreturn]] void refuse(const std::string& what) { sdk::fail(DPT_INVALID_ARGUMENT, "sglang payload: " + what); }

// The bytes `text` encodes; refuses anything but canonical padded base64.
std::vector<uint8_t> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    refuse(std::to_string(text.size()) + " characters is not a multiple of 4 (base64 comes in groups of 4)");
  }
  const size_t padding = text.empty() ? 0 : (text.back() == '=') + (text.size() >= 2 && text[text.size() - 2] == '=');
  std::vector<uint8_t> bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t group = 0;
    const bool last = i + 4 == text.size();
    const size_t data_chars = last ? 4 - padding : 4;
    for (size_t j = 0; j < 4; ++j) {
      const unsigned char c = static_cast<unsigned char>(text[i + j]);
      const uint8_t value = j < data_chars ? kValues[c] : (c == '=' ? 0 : 0xFF);
      if (value == 0xFF) {
        const std::string shown = c >= 0x20 && c < 0x7F ? std::string("'") + static_cast<char>(c) + "'"
                                                        : "byte " + std::to_string(c);
        refuse("character " + std::to_string(i + j) + " (" + shown + ") is not base64 here");
      }
      group = group << 6 | value;
    }
    const size_t data_bytes = data_chars * 6 / 8;  // 4 chars: 3 bytes, 3: 2, 2: 1
    if ((group & ((1u << (24 - 8 * data_bytes)) - 1)) != 0) {
      refuse("the padding bits of the last group are not zero (not a canonical encoding)");
    }
    for (size_t b = 0; b < data_bytes; ++b) bytes.push_back(static_cast<uint8_t>(group >> (16 - 8 * b)));
  }
  return bytes;
}

}  // namespace

std::string encode_sglang(std::span<const int32_t> ids) {
  std::string text;
  text.reserve((ids.size() * 4 + 2) / 3 * 4);
  const auto* bytes = reinterpret_cast<const uint8_t*>(ids.data());  // little-endian hosts only
  const size_t size = ids.size() * 4;
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t group = uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) text.push_back(kAlphabet[(group >> shift) & 63]);
  }
  if (i < size) {
    const uint32_t group = uint32_t{bytes[i]} << 16 | (i + 1 < size ? uint32_t{bytes[i + 1]} << 8 : 0);
    text.push_back(kAlphabet[group >> 18 & 63]);
    text.push_back(kAlphabet[group >> 12 & 63]);
    text.push_back(i + 1 < size ? kAlphabet[group >> 6 & 63] : '=');
    text.push_back('=');
  }
  return text;
}

std::vector<int32_t> decode_sglang(std::string_view text, uint32_t layers, uint32_t top_k, uint32_t experts) {
  detail::check_shape("sglang payload", layers, top_k, experts);
  const std::vector<uint8_t> bytes = base64_decode(text);
  const uint64_t row_bytes = uint64_t{layers} * top_k * 4;
  if (bytes.size() % row_bytes != 0) {
    refuse(std::to_string(bytes.size()) + " bytes is not a whole number of rows of " + std::to_string(layers) +
           " layers x " + std::to_string(top_k) + " ids x 4 bytes (" + std::to_string(row_bytes) + " bytes)");
  }
  std::vector<int32_t> ids(bytes.size() / 4);  // [rows, layers, top_k] int32
  if (!bytes.empty()) std::memcpy(ids.data(), bytes.data(), bytes.size());  // little-endian hosts only
  detail::check_ids("sglang payload", ids, layers, top_k, experts);
  return ids;
}

}  // namespace dopant::replay_codec
