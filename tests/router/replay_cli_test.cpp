// `dopant replay convert` and `inspect`, run as the real CLI: a payload written by an
// independent encoder (fixtures/write_sglang_payload.py: Python's base64 and struct) at
// Kimi-K2's shape goes sglang -> packed -> sglang and comes back byte for byte, the packed
// file within 5% of ceil(log2 384) = 9 bits per id; each kind of damaged payload is refused
// with its message and leaves no OUT.
#include "command_output.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using dopant::testing_support::command_output;

std::string read_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), {}};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

class ReplayCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dopant_replay_cli_" + std::to_string(getpid()) + "_" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `dopant replay ARGS`, stderr folded into the output.
  static std::pair<std::string, int> replay(const std::string& args) {
    return command_output(std::string(DOPANT_CLI) + " replay " + args + " 2>&1");
  }

  // A Kimi-K2-shaped sglang payload from the independent encoder: ROWS x 61 layers x top-8 of 384.
  fs::path python_payload(int rows) {
    const fs::path out = dir_ / "python.b64";
    const std::string command = std::string("/usr/bin/python3 ") + DOPANT_SGLANG_WRITER + " " + out.string() + " " +
                                std::to_string(rows) + " 61 8 384 7";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return out;
  }

  // Expects `dopant replay convert ARGS IN OUT` on `in` holding `bytes` to fail with `message`
  // (after "IN: ") and leave no OUT.
  void expect_refused(const std::string& args, const std::string& bytes, const std::string& message) {
    const fs::path in = dir_ / "in", out = dir_ / "out";
    write_bytes(in, bytes);
    const auto [text, status] = replay("convert " + args + " " + in.string() + " " + out.string());
    EXPECT_EQ(status, 1) << text;
    EXPECT_NE(text.find("dopant: error: " + in.string() + ": " + message), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(out)) << args;
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "a temporary file stayed";
  }

  fs::path dir_;
};

TEST_F(ReplayCli, KimiK2PayloadRoundTripsByteForByteAtNineBitsPerId) {
  const int rows = 512;
  const fs::path sglang = python_payload(rows), packed = dir_ / "turn.dprp", back = dir_ / "back.b64";
  auto [text, status] =
      replay("convert --from sglang --to packed --experts 384 --layers 61 --top-k 8 " + sglang.string() + " " +
             packed.string());
  ASSERT_EQ(status, 0) << text;
  std::tie(text, status) =
      replay("convert --from packed --to sglang --experts 384 " + packed.string() + " " + back.string());
  ASSERT_EQ(status, 0) << text;
  const std::string original = read_bytes(sglang);
  EXPECT_EQ(original.size(), (rows * 61 * 8 * 4 + 2) / 3 * 4);
  EXPECT_TRUE(read_bytes(back) == original) << "sglang -> packed -> sglang changed the payload";
  const double ideal_bytes = rows * 61.0 * 8 * 9 / 8;  // ceil(log2 384) = 9 bits per id
  const double packed_bytes = static_cast<double>(fs::file_size(packed));
  EXPECT_LE(packed_bytes, 1.05 * ideal_bytes);
  EXPECT_GE(packed_bytes, ideal_bytes);
}

TEST_F(ReplayCli, InspectPrintsHeaderShapeRangeAndChecksum) {
  const fs::path sglang = python_payload(4), packed = dir_ / "turn.dprp";
  auto [text, status] = replay("convert --from sglang --to packed --experts 384 --layers 61 --top-k 8 " +
                               sglang.string() + " " + packed.string());
  ASSERT_EQ(status, 0) << text;
  std::tie(text, status) = replay("inspect " + packed.string());
  ASSERT_EQ(status, 0) << text;
  const std::string bytes = read_bytes(packed);
  char crc[16];
  std::snprintf(crc, sizeof crc, "%02x%02x%02x%02x", static_cast<uint8_t>(bytes[bytes.size() - 1]),
                static_cast<uint8_t>(bytes[bytes.size() - 2]), static_cast<uint8_t>(bytes[bytes.size() - 3]),
                static_cast<uint8_t>(bytes[bytes.size() - 4]));
  EXPECT_NE(text.find("packed payload, version 1, " + std::to_string(bytes.size()) + " bytes\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nexperts 384 (9 bits per id), layers 61, top_k 8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nrows [0, 4): 4 rows, shape [4, 61, 8]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nexpert ids 0..383\n"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("\ncrc32c ") + crc + " (matches)\n"), std::string::npos) << text;

  std::tie(text, status) = replay("inspect --layers 61 --top-k 8 " + sglang.string());
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("sglang payload (base64 of little-endian int32, no header)"), std::string::npos) << text;
  EXPECT_NE(text.find("\n1952 ids: shape [4, 61, 8]\n"), std::string::npos) << text;
}

TEST_F(ReplayCli, DamagedPayloadsAreRefusedAndLeaveNoOutput) {
  const std::string sglang = "--from sglang --to packed --experts 384 --layers 1 --top-k 2";
  expect_refused(sglang, "BQAA#AYAAAA=", "sglang payload: character 4 ('#') is not base64 here");
  expect_refused(sglang, "BQAAAA==",
                 "sglang payload: 4 bytes is not a whole number of rows of 1 layers x 2 ids x 4 bytes");
  expect_refused("--from sglang --to packed --experts 6 --layers 1 --top-k 2", "BQAAAAYAAAA=",
                 "sglang payload: row 0, layer 0, slot 1: expert 6 is outside [0, 6)");

  // A valid packed payload of the two ids above, then damaged.
  const fs::path good_in = dir_ / "good.b64", good = dir_ / "good.dprp";
  write_bytes(good_in, "BQAAAAYAAAA=");
  const auto [text, status] = replay("convert " + sglang + " " + good_in.string() + " " + good.string());
  ASSERT_EQ(status, 0) << text;
  std::string packed = read_bytes(good);
  fs::remove(good_in);
  fs::remove(good);
  const std::string packed_to_sglang = "--from packed --to sglang --experts 384";
  std::string damaged = packed;
  damaged[40] = static_cast<char>(damaged[40] ^ 0x01);
  expect_refused(packed_to_sglang, damaged, "packed payload: checksum mismatch: stored ");
  expect_refused(packed_to_sglang, packed.substr(0, 20),
                 "packed payload: truncated: 20 bytes, a header and checksum need 44");
  expect_refused("--from packed --to sglang --experts 256", packed, "--experts 256 but the header says 384");
}

TEST_F(ReplayCli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(replay("convert --from sglang --to zip --experts 8 a b").second, 2);
  EXPECT_EQ(replay("convert --from sglang --to packed a b").second, 2);  // no --experts
  const fs::path in = dir_ / "in";
  write_bytes(in, "BQAAAA==");
  const auto [text, status] = replay("convert --from sglang --to packed --experts 8 " + in.string() + " " +
                                     (dir_ / "out").string());
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find("--from sglang needs --layers and --top-k"), std::string::npos) << text;
}

}  // namespace
