// The DCP reader on a checkpoint PyTorch 1.13 wrote (fixtures/make_pickle_fixtures.py):
// tensors, dtypes, shapes and chunks come from .metadata, and each chunk reads back the
// bytes the script stored. A truncated .distcp, a metadata length past the end of its file,
// a missing file, a dtype that disagrees with the stored item and a tensor listed twice are
// refused by name.
#include "dopant/dcp/reader.hpp"
#include "dopant/dcp/torch_archive.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace dopant::dcp {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoint = fs::path(DOPANT_PICKLE_FIXTURES) / "dcp_small";

class DcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-dcp-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    copy_ = fs::path(pattern) / "dcp_small";
    fs::copy(kCheckpoint, copy_);
  }
  void TearDown() override { fs::remove_all(copy_.parent_path()); }

  std::string open_error() const {
    try {
      Reader reader(copy_.string());
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path copy_;
};

TEST_F(DcpTest, ListsTensorsAndReadsTheBytesPyTorchStored) {
  const Reader reader(kCheckpoint.string());
  const auto& tensors = reader.listing().tensors;
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].name, "embed.weight");
  EXPECT_TRUE(sdk::same_dtype(tensors[0].dtype, sdk::kFloat32));
  EXPECT_EQ(tensors[0].shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(tensors[0].chunks.size(), 1u);
  EXPECT_EQ(tensors[0].chunks[0].offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(tensors[0].chunks[0].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(fs::path(tensors[0].chunks[0].file).filename(), "__0_0.distcp");
  EXPECT_EQ(tensors[0].chunks[0].byte_length, 24u);
  std::vector<float> embed(6);
  reader.read(0, 0, embed.data(), 24);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(embed[i], 0.5f * static_cast<float>(i));  // arange(6) * 0.5

  EXPECT_EQ(tensors[1].name, "layers.0.bias");
  EXPECT_TRUE(sdk::same_dtype(tensors[1].dtype, sdk::kFloat16));
  std::vector<uint16_t> bias(4);
  reader.read(1, 0, bias.data(), 8);
  EXPECT_EQ(bias, (std::vector<uint16_t>{0x3C00, 0x4000, 0x4200, 0x4400}));  // 1, 2, 3, 4 in fp16
}

TEST_F(DcpTest, ATruncatedItemFileIsRefusedNamingIt) {
  const fs::path item = copy_ / "__0_0.distcp";
  fs::resize_file(item, 100);
  const std::string message = open_error();
  EXPECT_NE(message.find(item.string() + ": the metadata puts tensor `embed.weight` chunk at [0, 0] at bytes [0, 747), "
                                         "outside the file (100 bytes)"),
            std::string::npos)
      << message;
}

// The file is whole, but the metadata (as PyTorch pickles it) gives the item 4096 more bytes.
TEST(DcpDamaged, AMetadataLengthPastTheEndOfTheFileIsRefused) {
  const fs::path folder = fs::path(DOPANT_PICKLE_FIXTURES) / "dcp_bad_length";
  try {
    Reader reader(folder.string());
    FAIL() << "opened";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_DATA_LOSS);
    EXPECT_NE(std::string(e.what()).find((folder / "__0_0.distcp").string() +
                                         ": the metadata puts tensor `embed.weight` chunk at [0, 0] at bytes [0, 4843), "
                                         "outside the file (747 bytes)"),
              std::string::npos)
        << e.what();
  }
}

TEST(DcpDamaged, ATensorListedTwiceIsRefused) {
  const fs::path folder = fs::path(DOPANT_PICKLE_FIXTURES) / "dcp_duplicate";
  try {
    Reader reader(folder.string());
    FAIL() << "opened";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_DATA_LOSS);
    EXPECT_NE(std::string(e.what()).find((folder / ".metadata").string() + ": tensor `embed.weight` is listed twice"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(DcpTest, AMissingItemFileIsRefusedNamingIt) {
  fs::remove(copy_ / "__0_1.distcp");
  EXPECT_NE(open_error().find((copy_ / "__0_1.distcp").string() + ": cannot open: No such file or directory"),
            std::string::npos);
}

TEST_F(DcpTest, ADamagedArchiveIsRefusedNamingTheFile) {
  // Overwrite the end-of-directory record of the first item's zip.
  const fs::path item = copy_ / "__0_0.distcp";
  std::string bytes;
  {
    std::ifstream in(item, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t end = bytes.rfind("PK\x05\x06");
  ASSERT_NE(end, std::string::npos);
  bytes[end + 2] = 'X';
  std::ofstream(item, std::ios::binary | std::ios::trunc) << bytes;
  const std::string message = open_error();
  EXPECT_NE(message.find(item.string() + ": archive at byte 0: no zip end-of-directory record"), std::string::npos)
      << message;
}

TEST_F(DcpTest, ADtypeThatDisagreesWithTheStoredItemIsRefused) {
  // Swap the two items: embed.weight's metadata (float32) now points at float16 bytes.
  fs::rename(copy_ / "__0_0.distcp", copy_ / "swap");
  fs::rename(copy_ / "__0_1.distcp", copy_ / "__0_0.distcp");
  fs::rename(copy_ / "swap", copy_ / "__0_1.distcp");
  const std::string message = open_error();
  EXPECT_NE(message.find("dtype mismatch: the metadata says float32, the stored item is torch.HalfStorage"),
            std::string::npos)
      << message;
}

// PyTorch writes no zip comment, so the end record is looked for in the last 22 bytes
// first; an archive with a comment must still be read, with the same entries.
TEST_F(DcpTest, AnArchiveWithACommentReadsTheSameEntries) {
  const fs::path plain = fs::path(DOPANT_PICKLE_FIXTURES) / "torch_save_small.pt";
  std::string bytes;
  {
    std::ifstream in(plain, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_EQ(bytes.compare(bytes.size() - 22, 4, "PK\x05\x06"), 0) << "the fixture has a comment already";
  const std::string comment = "a comment moves the end record back";
  bytes[bytes.size() - 2] = static_cast<char>(comment.size());  // u16 comment length, little-endian
  bytes += comment;
  const fs::path commented = copy_.parent_path() / "commented.pt";
  std::ofstream(commented, std::ios::binary) << bytes;

  const checkpoint_io::InputFile original(plain.string()), with_comment(commented.string());
  const auto expected = archive_entries(original, 0, original.size());
  const auto got = archive_entries(with_comment, 0, with_comment.size());
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_GE(got.size(), 3u);  // data.pkl, data/0, version
  for (const auto& [name, entry] : expected) {
    ASSERT_EQ(got.count(name), 1u) << name;
    EXPECT_EQ(got.at(name).offset, entry.offset) << name;
    EXPECT_EQ(got.at(name).length, entry.length) << name;
  }
}

TEST_F(DcpTest, AMetadataFileThatIsNotDcpIsRefused) {
  std::ofstream(copy_ / ".metadata", std::ios::binary | std::ios::trunc) << std::string("\x80\x02N.", 4);
  EXPECT_NE(open_error().find(".metadata: not a DCP Metadata object"), std::string::npos);
}

}  // namespace
}  // namespace dopant::dcp
