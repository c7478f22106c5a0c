// The replay payload codecs: known answers from independent encoders (Python's base64 of
// numpy-style little-endian int32; the CRC32C check value of RFC 3720), decode(encode(x))
// == x on random and edge shapes, the packed size against ceil(log2 experts) bits per id at
// Kimi-K2's shape, and one refusal per kind of malformed payload, each with its message.
#include <dopant/replay_codec/codecs.hpp>
#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace dopant::router_tests {
namespace {

using replay_codec::RoutingRows;

// The message of the sdk::Error `body` throws, checked to carry `code` ("" if none).
template <typename Body>
std::string error_of(Body&& body, dpt_code code = DPT_INVALID_ARGUMENT) {
  try {
    body();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  return "";
}

RoutingRows random_rows(uint64_t rows, uint32_t layers, uint32_t top_k, uint32_t experts, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<uint32_t> id(0, experts - 1);
  RoutingRows out{seed % 1000, layers, top_k, experts, {}};
  out.ids.resize(rows * layers * top_k);
  for (int32_t& x : out.ids) x = static_cast<int32_t>(id(random));
  return out;
}

TEST(SglangCodec, MatchesPythonsBase64OfLittleEndianInt32) {
  // base64.b64encode(struct.pack("<12i", *ids)) and the 1- and 2-id cases, from Python 3.
  const std::vector<int32_t> ids = {0, 1, 7, 383, 65535, 2, 255, 256, 1000000, 3, 4, 5};
  const std::string python = "AAAAAAEAAAAHAAAAfwEAAP//AAACAAAA/wAAAAABAABAQg8AAwAAAAQAAAAFAAAA";
  EXPECT_EQ(replay_codec::encode_sglang(ids), python);
  EXPECT_EQ(replay_codec::decode_sglang(python, 2, 3, 1u << 20), ids);
  EXPECT_EQ(replay_codec::encode_sglang(std::vector<int32_t>{5}), "BQAAAA==");
  EXPECT_EQ(replay_codec::encode_sglang(std::vector<int32_t>{5, 6}), "BQAAAAYAAAA=");
  EXPECT_EQ(replay_codec::decode_sglang("BQAAAAYAAAA=", 1, 2, 7), (std::vector<int32_t>{5, 6}));
}

TEST(PackedCodec, Crc32cGivesTheCheckValue) {
  const std::string text = "123456789";
  EXPECT_EQ(replay_codec::crc32c({reinterpret_cast<const uint8_t*>(text.data()), text.size()}), 0xE3069283u);
}

TEST(PackedCodec, BitsPerIdIsCeilLog2) {
  EXPECT_EQ(replay_codec::bits_per_id(1), 0u);
  EXPECT_EQ(replay_codec::bits_per_id(2), 1u);
  EXPECT_EQ(replay_codec::bits_per_id(3), 2u);
  EXPECT_EQ(replay_codec::bits_per_id(256), 8u);
  EXPECT_EQ(replay_codec::bits_per_id(257), 9u);
  EXPECT_EQ(replay_codec::bits_per_id(384), 9u);
  EXPECT_EQ(replay_codec::bits_per_id(65536), 16u);
  EXPECT_EQ(replay_codec::bits_per_id(replay_codec::kMaxExperts), 31u);
}

struct CodecShape {
  uint64_t rows;
  uint32_t layers, top_k, experts;
};

class CodecRoundTrip : public testing::TestWithParam<CodecShape> {};

TEST_P(CodecRoundTrip, DecodeOfEncodeIsTheInput) {
  const CodecShape s = GetParam();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const RoutingRows rows = random_rows(s.rows, s.layers, s.top_k, s.experts, seed);
    const std::vector<uint8_t> packed = replay_codec::encode_packed(rows);
    EXPECT_EQ(replay_codec::decode_packed(packed), rows);
    const std::string text = replay_codec::encode_sglang(rows.ids);
    EXPECT_EQ(replay_codec::decode_sglang(text, s.layers, s.top_k, s.experts), rows.ids);
    EXPECT_EQ(text.size(), (rows.ids.size() * 4 + 2) / 3 * 4);
    EXPECT_EQ(packed.size(), 44 + (rows.ids.size() * replay_codec::bits_per_id(s.experts) + 7) / 8);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CodecRoundTrip,
                         testing::Values(CodecShape{17, 3, 2, 1}, CodecShape{17, 3, 2, 2}, CodecShape{33, 5, 8, 256},
                                         CodecShape{33, 61, 8, 384}, CodecShape{9, 2, 4, 65536},
                                         CodecShape{0, 61, 8, 384}, CodecShape{50, 4, 1, 384},
                                         CodecShape{5, 1, 1, replay_codec::kMaxExperts},
                                         CodecShape{7, 3, 3, 5}));

TEST(PackedCodec, KimiK2TurnTakesCeilLog2BitsPerId) {
  // 2048 new tokens, 61 layers, top-8 of 384 experts: 9 bits an id, header and CRC aside.
  const RoutingRows rows = random_rows(2048, 61, 8, 384, 42);
  const std::vector<uint8_t> packed = replay_codec::encode_packed(rows);
  const double ideal = static_cast<double>(rows.ids.size()) * 9 / 8;
  EXPECT_LE(static_cast<double>(packed.size()) / ideal, 1.05);
  EXPECT_EQ(packed.size(), 44u + 1124352u);
  EXPECT_EQ(replay_codec::decode_packed(packed), rows);
}

// A valid packed payload of 3 rows, 2 layers, top-2 of 384 experts, to break one way at a time.
std::vector<uint8_t> valid_packed() { return replay_codec::encode_packed(random_rows(3, 2, 2, 384, 5)); }

// Rewrites the CRC after a change, so that a check other than the checksum must refuse it.
void reseal(std::vector<uint8_t>& bytes) {
  const uint32_t crc = replay_codec::crc32c({bytes.data(), bytes.size() - 4});
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
}

TEST(PackedCodec, RefusesEachKindOfDamage) {
  const auto refused = [](const std::vector<uint8_t>& bytes, dpt_code code = DPT_INVALID_ARGUMENT) {
    return error_of([&] { replay_codec::decode_packed(bytes); }, code);
  };
  std::vector<uint8_t> bytes = valid_packed();
  EXPECT_EQ(refused({bytes.begin(), bytes.begin() + 43}), "packed payload: truncated: 43 bytes, a header and checksum need 44");
  bytes = valid_packed();
  bytes[0] = 'X';
  EXPECT_EQ(refused(bytes), "packed payload: bad magic (not \"DPRP\")");
  bytes = valid_packed();
  bytes[4] = 2;
  EXPECT_EQ(refused(bytes), "packed payload: version 2, this reader knows 1");
  bytes = valid_packed();
  bytes[6] = 8;
  reseal(bytes);
  EXPECT_EQ(refused(bytes), "packed payload: 8 bits per id, but 384 experts take 9");
  bytes = valid_packed();
  bytes[32] = 4;  // 4 rows claimed, 3 sent
  reseal(bytes);
  EXPECT_EQ(refused(bytes), "packed payload: 14 payload bytes do not hold 4 rows of 2 layers x 2 ids of 9 bits");
  bytes = valid_packed();
  bytes[45] ^= 0x10;
  EXPECT_NE(refused(bytes, DPT_DATA_LOSS).find("packed payload: checksum mismatch: stored "), std::string::npos);
  bytes = valid_packed();
  bytes[40] = 0xFF;
  bytes[41] |= 0x01;  // first id = 511
  reseal(bytes);
  EXPECT_EQ(refused(bytes), "packed payload: row 0, layer 0, slot 0: expert 511 is outside [0, 384)");
  bytes = valid_packed();
  bytes[40 + 13] |= 0x80;  // 12 ids x 9 bits = 108 bits: bits 108..111 are padding
  reseal(bytes);
  EXPECT_EQ(refused(bytes), "packed payload: the bits after the last id are not zero (not a canonical encoding)");
  bytes = valid_packed();
  bytes[12] = 0;  // layers 0
  reseal(bytes);
  EXPECT_EQ(refused(bytes), "packed payload: layers must be at least 1");
}

TEST(PackedCodec, OneExpertCannotClaimUnboundedRows) {
  RoutingRows rows{0, 1, 1, 1, {}};
  std::vector<uint8_t> bytes = replay_codec::encode_packed(rows);
  const uint64_t claimed = uint64_t{1} << 40;
  std::memcpy(bytes.data() + 32, &claimed, 8);
  reseal(bytes);
  EXPECT_EQ(error_of([&] { replay_codec::decode_packed(bytes); }),
            "packed payload: 1099511627776 rows hold 1099511627776 ids, more than the 268435456 this reader accepts");
}

TEST(SglangCodec, RefusesEachKindOfDamage) {
  const auto refused = [](std::string_view text, uint32_t experts = 384) {
    return error_of([&] { replay_codec::decode_sglang(text, 1, 2, experts); });
  };
  EXPECT_EQ(refused("BQAAAAYAAA"), "sglang payload: 10 characters is not a multiple of 4 (base64 comes in groups of 4)");
  EXPECT_EQ(refused("BQAA#AYAAAA="), "sglang payload: character 4 ('#') is not base64 here");
  EXPECT_EQ(refused("BQ=AAAYAAAA="), "sglang payload: character 2 ('=') is not base64 here");
  EXPECT_EQ(refused("BQAAAAYAAAB="), "sglang payload: the padding bits of the last group are not zero (not a canonical encoding)");
  EXPECT_EQ(refused("BQAAAA=="), "sglang payload: 4 bytes is not a whole number of rows of 1 layers x 2 ids x 4 bytes (8 bytes)");
  EXPECT_EQ(refused("BQAAAAYAAAA=", 6), "sglang payload: row 0, layer 0, slot 1: expert 6 is outside [0, 6)");
  EXPECT_EQ(refused("/////wYAAAA="), "sglang payload: row 0, layer 0, slot 0: expert -1 is outside [0, 384)");
  EXPECT_EQ(error_of([] { replay_codec::decode_sglang("", 0, 2, 8); }), "sglang payload: layers must be at least 1");
  EXPECT_TRUE(replay_codec::decode_sglang("", 61, 8, 384).empty());
}

TEST(PackedCodec, EncodeRefusesIdsOutOfRange) {
  RoutingRows rows = random_rows(2, 2, 2, 8, 3);
  rows.ids[5] = 8;
  EXPECT_EQ(error_of([&] { replay_codec::encode_packed(rows); }),
            "packed encode: row 1, layer 0, slot 1: expert 8 is outside [0, 8)");
}

}  // namespace
}  // namespace dopant::router_tests
