// The safetensors library: what it writes reads back byte for byte (one file, or shards
// with an index), a file made by Python reads with the values its script wrote, and every
// way a file can break the format is refused with a message naming the file and the tensor
// or field, leaving no output behind.
#include "dopant/safetensors/format.hpp"
#include "dopant/safetensors/reader.hpp"
#include "dopant/safetensors/writer.hpp"

#include <dopant/sdk/tensors.hpp>
#include <dopant/support/json_value.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dopant::safetensors {
namespace {

namespace fs = std::filesystem;

class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-safetensors-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { fs::remove_all(folder_); }

  // A file of `header` (padded with `padding` spaces) followed by `data`.
  std::string file_of(const std::string& name, const std::string& header, const std::string& data,
                      size_t padding = 0) {
    const std::string text = header + std::string(padding, ' ');
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((uint64_t{text.size()} >> (8 * i)) & 0xFF);
    const std::string path = (folder_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes << text << data;
    return path;
  }

  // The message of the error opening `path` raises, "" when it opens.
  static std::string open_error(const std::string& path) {
    try {
      Reader reader(path);
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path folder_;
};

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor view{};
  Tensor(void* data, DLDataType dtype, std::vector<int64_t> dims) : shape(std::move(dims)), strides(shape.size(), 1) {
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
    view = DLTensor{data, {kDLCPU, 0}, static_cast<int32_t>(shape.size()), dtype, shape.data(), strides.data(), 0};
  }
};

std::vector<char> read_tensor(const Reader& reader, uint64_t index) {
  const auto& chunk = reader.listing().tensors[index].chunks.at(0);
  std::vector<char> bytes(chunk.byte_length);
  reader.read(index, 0, bytes.data(), bytes.size());
  return bytes;
}

std::map<std::string, uint64_t> index_by_name(const Reader& reader) {
  std::map<std::string, uint64_t> found;
  for (uint64_t i = 0; i < reader.listing().tensors.size(); ++i) found[reader.listing().tensors[i].name] = i;
  return found;
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(SafetensorsTest, OneShardRoundTripsBytesShapesDtypesAndMetadata) {
  std::vector<float> weights = {1.5f, -0.0f, 3.25f, 1e-30f, 7.0f, -8.5f};  // [2, 3] F32
  std::vector<int64_t> steps = {int64_t{1} << 40};                         // [1] I64
  std::vector<uint16_t> halves = {0x3C00, 0x7BFF, 0x8001};                  // [3] BF16 bits
  Tensor w(weights.data(), sdk::kFloat32, {2, 3}), s(steps.data(), sdk::kInt64, {1}),
      h(halves.data(), sdk::kBFloat16, {3});
  const std::string destination = (folder_ / "out").string();
  {
    Writer writer(destination, 1 << 20, {{"format", "pt"}, {"note", "a \"quoted\" value"}}, nullptr);
    writer.add("model.w", w.view);
    writer.add("step", s.view);
    writer.add("h", h.view);
    writer.finalize();
  }
  ASSERT_EQ(std::vector<fs::path>(fs::directory_iterator(folder_), fs::directory_iterator()),
            std::vector<fs::path>{folder_ / "out"})
      << "the temporary folder was left next to the destination";
  EXPECT_TRUE(fs::exists(folder_ / "out" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(folder_ / "out" / "model.safetensors.index.json")) << "one shard needs no index";

  const std::string file = text_of(folder_ / "out" / "model.safetensors");
  uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, file.data(), 8);
  EXPECT_EQ((8 + header_bytes) % 8, 0u) << "the data section must start 8-byte aligned";
  EXPECT_EQ(file.size(), 8 + header_bytes + 24 + 8 + 6);

  const Reader reader(destination);
  const auto& tensors = reader.listing().tensors;
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].name, "model.w");  // in the order of the data section
  EXPECT_EQ(tensors[1].name, "step");
  EXPECT_EQ(tensors[2].name, "h");
  EXPECT_EQ(tensors[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(sdk::same_dtype(tensors[2].dtype, sdk::kBFloat16));
  EXPECT_EQ(tensors[0].chunks[0].offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(tensors[0].chunks[0].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensors[0].chunks[0].byte_offset, 8 + header_bytes);
  const std::vector<char> got = read_tensor(reader, 0);
  EXPECT_EQ(0, std::memcmp(got.data(), weights.data(), 24));
  EXPECT_EQ(0, std::memcmp(read_tensor(reader, 1).data(), steps.data(), 8));
  EXPECT_EQ(0, std::memcmp(read_tensor(reader, 2).data(), halves.data(), 6));
  EXPECT_EQ(reader.listing().metadata, (sdk::Metadata{{"format", "pt"}, {"note", "a \"quoted\" value"}}));
}

TEST_F(SafetensorsTest, ShardsAreNamedLikeHuggingFaceAndIndexed) {
  // Five 1 KiB tensors in shards of at most 2 KiB: [t0 t1] [t2 t3] [t4].
  std::vector<std::vector<float>> data(5, std::vector<float>(256));
  for (size_t t = 0; t < data.size(); ++t) {
    for (size_t i = 0; i < 256; ++i) data[t][i] = static_cast<float>(t * 1000 + i);
  }
  const std::string destination = (folder_ / "sharded").string();
  {
    Writer writer(destination, 2048, {}, nullptr);
    for (size_t t = 0; t < data.size(); ++t) {
      Tensor view(data[t].data(), sdk::kFloat32, {16, 16});
      writer.add("layers." + std::to_string(t) + ".weight", view.view);
    }
    writer.finalize();
  }
  const fs::path out = destination;
  for (const char* shard : {"model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                            "model-00003-of-00003.safetensors"}) {
    EXPECT_TRUE(fs::exists(out / shard)) << shard;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 4);

  const JsonValue index = parse_json(text_of(out / kIndexFile));
  EXPECT_EQ(index.at("metadata").at("total_size").unsigned_integer(), 5u * 1024);
  const auto& weight_map = index.at("weight_map").object();
  ASSERT_EQ(weight_map.size(), 5u);
  EXPECT_EQ(weight_map.at("layers.0.weight").string(), "model-00001-of-00003.safetensors");
  EXPECT_EQ(weight_map.at("layers.1.weight").string(), "model-00001-of-00003.safetensors");
  EXPECT_EQ(weight_map.at("layers.2.weight").string(), "model-00002-of-00003.safetensors");
  EXPECT_EQ(weight_map.at("layers.4.weight").string(), "model-00003-of-00003.safetensors");

  const Reader reader(destination);
  const auto found = index_by_name(reader);
  ASSERT_EQ(found.size(), 5u);
  for (size_t t = 0; t < data.size(); ++t) {
    const uint64_t i = found.at("layers." + std::to_string(t) + ".weight");
    EXPECT_EQ(fs::path(reader.listing().tensors[i].chunks[0].file).filename(),
              weight_map.at("layers." + std::to_string(t) + ".weight").string());
    EXPECT_EQ(0, std::memcmp(read_tensor(reader, i).data(), data[t].data(), 1024)) << t;
  }
}

TEST_F(SafetensorsTest, ATensorLargerThanAShardGetsAShardOfItsOwn) {
  std::vector<float> big(1024, 1.0f), small(4, 2.0f);
  const std::string destination = (folder_ / "big").string();
  {
    Writer writer(destination, 64, {}, nullptr);
    Tensor a(small.data(), sdk::kFloat32, {4}), b(big.data(), sdk::kFloat32, {1024}), c(small.data(), sdk::kFloat32, {4});
    writer.add("a", a.view);
    writer.add("b", b.view);
    writer.add("c", c.view);
    writer.finalize();
  }
  const JsonValue index = parse_json(text_of(fs::path(destination) / kIndexFile));
  EXPECT_EQ(index.at("weight_map").at("a").string(), "model-00001-of-00003.safetensors");
  EXPECT_EQ(index.at("weight_map").at("b").string(), "model-00002-of-00003.safetensors");
  EXPECT_EQ(index.at("weight_map").at("c").string(), "model-00003-of-00003.safetensors");
}

// A planned writer, told the tensors first and given their bytes in pieces, in reverse, from
// memory and from a file, writes the same files, byte for byte, as add() does.
TEST_F(SafetensorsTest, APlannedWriterWritesWhatAddWrites) {
  std::vector<float> big(1024), small(4);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) - 7.5f;
  for (size_t i = 0; i < small.size(); ++i) small[i] = -static_cast<float>(i);
  Tensor a(small.data(), sdk::kFloat32, {4}), b(big.data(), sdk::kFloat32, {32, 32}), c(small.data(), sdk::kFloat32, {2, 2});
  const std::string added = (folder_ / "added").string(), planned = (folder_ / "planned").string();
  {
    Writer writer(added, 64, {{"format", "pt"}}, nullptr);  // shards [a] [b] [c], as above
    writer.add("a", a.view);
    writer.add("b", b.view);
    writer.add("c", c.view);
    writer.finalize();
  }
  const std::string source = (folder_ / "big.raw").string();
  std::ofstream(source, std::ios::binary).write(reinterpret_cast<const char*>(big.data()), 4096);
  const checkpoint_io::InputFile file(source);
  {
    Writer writer(planned, 64, {{"format", "pt"}}, nullptr);
    writer.plan({{"a", sdk::kFloat32, {4}}, {"b", sdk::kFloat32, {32, 32}}, {"c", sdk::kFloat32, {2, 2}}});
    writer.write(2, 8, small.data() + 2, 8);
    writer.write(2, 0, small.data(), 8);
    writer.copy(1, 1000, file, 1000, 3096);
    writer.copy(1, 0, file, 0, 1000);
    writer.write(0, 0, small.data(), 16);
    EXPECT_THROW(writer.write(0, 8, small.data(), 9), sdk::Error) << "past the end of tensor a";
    writer.finalize();
  }
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(added)) {
    EXPECT_EQ(text_of(entry.path()), text_of(fs::path(planned) / entry.path().filename())) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 4u);
  EXPECT_EQ(std::distance(fs::directory_iterator(planned), fs::directory_iterator()), 4);
}

// A planned writer whose tensors were not all put refuses to finalize, and leaves nothing.
TEST_F(SafetensorsTest, APlannedWriterMissingBytesLeavesNothing) {
  std::vector<float> values(4, 1.0f);
  {
    Writer writer((folder_ / "out").string(), 1024, {}, nullptr);
    writer.plan({{"a", sdk::kFloat32, {4}}, {"b", sdk::kFloat32, {4}}});
    writer.write(0, 0, values.data(), 16);
    writer.write(1, 0, values.data(), 12);
    EXPECT_THROW(writer.finalize(), sdk::Error);
  }
  EXPECT_TRUE(fs::is_empty(folder_));
}

TEST_F(SafetensorsTest, AWriterDestroyedBeforeFinalizeLeavesNothing) {
  std::vector<float> values(1000, 3.0f);
  Tensor view(values.data(), sdk::kFloat32, {1000});
  {
    Writer writer((folder_ / "out").string(), 1024, {}, nullptr);
    writer.add("a", view.view);
    writer.add("b", view.view);  // closes the first shard, so a finished shard file exists too
    EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()), 1);
  }
  EXPECT_TRUE(fs::is_empty(folder_));
}

TEST_F(SafetensorsTest, WriterRefusesDuplicatesUnstorableDtypesAndExistingDestinations) {
  std::vector<float> values(4, 1.0f);
  Tensor view(values.data(), sdk::kFloat32, {4});
  Tensor complex(values.data(), DLDataType{kDLComplex, 64, 1}, {2});
  {
    Writer writer((folder_ / "out").string(), 1024, {}, nullptr);
    writer.add("a", view.view);
    try {
      writer.add("a", view.view);
      ADD_FAILURE() << "a duplicate name was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), DPT_ALREADY_EXISTS);
      EXPECT_NE(std::string(e.what()).find("tensor `a` was added twice"), std::string::npos) << e.what();
    }
    EXPECT_THROW(writer.finalize(), sdk::Error) << "a failed writer must not finalize";
  }
  {
    Writer writer((folder_ / "out").string(), 1024, {}, nullptr);
    try {
      writer.add("z", complex.view);
      ADD_FAILURE() << "a complex tensor was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_NE(std::string(e.what()).find("safetensors cannot store"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_empty(folder_));
  std::ofstream(folder_ / "taken") << "keep";
  try {
    Writer writer((folder_ / "taken").string(), 1024, {}, nullptr);
    ADD_FAILURE() << "an existing destination was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_ALREADY_EXISTS);
  }
  EXPECT_EQ(text_of(folder_ / "taken"), "keep");
}

// A host with only what the writer uses: is_cancelled, from a flag, and log, recorded.
struct FakeHost {
  dpt_host host{};
  bool cancelled = false;
  std::vector<std::string> lines;
  FakeHost() {
    host.struct_size = DPT_HOST_SIZE_1_0;
    host.host_data = this;
    host.is_cancelled = [](const dpt_host* h) -> int32_t { return static_cast<FakeHost*>(h->host_data)->cancelled; };
    host.log = [](const dpt_host* h, dpt_log_level, const char* line) {
      static_cast<FakeHost*>(h->host_data)->lines.push_back(line);
    };
  }
};

TEST_F(SafetensorsTest, ProgressIsLoggedAndCancellationLeavesNothing) {
  FakeHost fake;
  std::vector<float> values(4, 1.0f);
  Tensor view(values.data(), sdk::kFloat32, {4});
  {
    Writer writer((folder_ / "out").string(), 1024, {}, &fake.host);
    writer.add("a", view.view);
    writer.add("b", view.view);
    EXPECT_EQ(fake.lines, (std::vector<std::string>{"progress 16 bytes", "progress 32 bytes"}));
    fake.cancelled = true;
    try {
      writer.add("c", view.view);
      ADD_FAILURE() << "a cancelled run kept writing";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), DPT_CANCELLED);
    }
  }
  EXPECT_TRUE(fs::is_empty(folder_));
  {
    fake.cancelled = false;
    Writer writer((folder_ / "out").string(), 1024, {}, &fake.host);
    writer.add("a", view.view);
    fake.cancelled = true;
    EXPECT_THROW(writer.finalize(), sdk::Error);
  }
  EXPECT_TRUE(fs::is_empty(folder_)) << "a cancelled finalize left files behind";
}

// What the writer wrote, read by an independent reader in plain Python (read_safetensors.py).
TEST_F(SafetensorsTest, AnIndependentPythonReaderReadsWhatTheWriterWrote) {
  std::vector<uint16_t> halves = {0x3C00, 0xC000, 0x7BFF};  // [3] BF16 bits
  std::vector<int32_t> ints = {1, -2, 3, -4, 5, -6};        // [2, 3] I32
  std::vector<uint8_t> flags = {1, 0};                       // [2] BOOL
  Tensor h(halves.data(), sdk::kBFloat16, {3}), i(ints.data(), sdk::kInt32, {2, 3}), f(flags.data(), sdk::kBool, {2});
  const std::string destination = (folder_ / "for-python").string();
  {
    Writer writer(destination, 16, {{"format", "pt"}}, nullptr);  // three shards
    writer.add("h", h.view);
    writer.add("i", i.view);
    writer.add("f", f.view);
    writer.finalize();
  }
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen((std::string(DOPANT_PYTHON3) + " " + DOPANT_READ_SAFETENSORS + " " + destination + " 2>&1").c_str(), "r"),
      pclose);
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe.release()), 0) << out;
  EXPECT_EQ(out,
            "f BOOL [2] 0100\n"
            "h BF16 [3] 003c00c0ff7b\n"
            "i I32 [2, 3] 01000000feffffff03000000fcffffff05000000faffffff\n");
}

// A file made by tests/checkpoint/fixtures/make_safetensors_fixture.py (struct + json);
// the expected values are the script's formulas.
TEST_F(SafetensorsTest, AFileWrittenByPythonReadsWithTheValuesItsScriptWrote) {
  const Reader reader(DOPANT_SAFETENSORS_PYTHON_FIXTURE);
  const auto found = index_by_name(reader);
  ASSERT_EQ(found.size(), 6u);
  EXPECT_EQ(reader.listing().metadata, (sdk::Metadata{{"format", "pt"}}));

  const auto& embed = reader.listing().tensors[found.at("embed.weight")];
  EXPECT_TRUE(sdk::same_dtype(embed.dtype, sdk::kFloat32));
  EXPECT_EQ(embed.shape, (std::vector<int64_t>{2, 3}));
  std::vector<float> floats(6);
  std::memcpy(floats.data(), read_tensor(reader, found.at("embed.weight")).data(), 24);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(floats[i], 0.5f * static_cast<float>(i));

  std::vector<uint16_t> half(4);
  std::memcpy(half.data(), read_tensor(reader, found.at("layer.bias")).data(), 8);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(half[i], 0x3C00 + i);
  EXPECT_TRUE(sdk::same_dtype(reader.listing().tensors[found.at("layer.bias")].dtype, sdk::kFloat16));

  std::vector<uint16_t> bf16(2);
  std::memcpy(bf16.data(), read_tensor(reader, found.at("layer.scale")).data(), 4);
  EXPECT_EQ(bf16, (std::vector<uint16_t>{0x3F80, 0xC000}));

  int64_t step = 0;
  std::memcpy(&step, read_tensor(reader, found.at("step")).data(), 8);
  EXPECT_EQ(step, (int64_t{1} << 40) + 7);
  EXPECT_TRUE(reader.listing().tensors[found.at("step")].shape.empty());

  EXPECT_EQ(read_tensor(reader, found.at("mask")), (std::vector<char>{1, 0, 1}));
  EXPECT_EQ(reader.listing().tensors[found.at("empty")].shape, (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(read_tensor(reader, found.at("empty")).empty());
}

// Each bad file: the message must name the file, and the tensor or field at fault.
TEST_F(SafetensorsTest, EveryBrokenFileIsRefusedNamingFileAndField) {
  const std::string eight(8, 'x');
  struct Case {
    const char* file;
    std::string header, data;
    const char* expected;
  };
  const Case cases[] = {
      {"overlap", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
       eight, "tensor `b`: `data_offsets` [4, 8) overlap tensor `a`"},
      {"gap", R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
       eight, "tensor `b`: `data_offsets` begin 4 leaves a gap after byte 2"},
      {"not_from_zero", R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})", eight,
       "tensor `a`: `data_offsets` begin 4 leaves a gap after byte 0"},
      {"size", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight,
       "tensor `a`: `data_offsets` span 8 bytes, but F32 of shape [3] needs 12"},
      {"incomplete", R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", eight,
       "the tensors cover 4 bytes of data, but the file holds 8 after the header"},
      {"truncated", R"({"a":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}})", eight,
       "the tensors cover 16 bytes of data, but the file holds 8 after the header (truncated file?)"},
      {"invalid_json", R"({"a":{"dtype":"U8",)", eight, "header: JSON: expected a string at byte 19"},
      {"duplicate", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})",
       eight, "header: JSON: duplicate key `a` at byte 53"},
      {"not_object", R"([1, 2])", "", "header: expected a JSON object"},
      {"dtype", R"({"a":{"dtype":"F128","shape":[1],"data_offsets":[0,8]}})", eight, "tensor `a`: unknown dtype `F128`"},
      {"negative", R"({"a":{"dtype":"U8","shape":[-8],"data_offsets":[0,8]}})", eight,
       "tensor `a`: each `shape` extent must be a non-negative integer"},
      {"fraction", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8.0]}})", eight,
       "tensor `a`: `data_offsets` end must be a non-negative integer"},
      {"reversed", R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}})", eight,
       "tensor `a`: `data_offsets` end 0 is before begin 8"},
      {"three_offsets", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8,8]}})", eight,
       "tensor `a`: `data_offsets` must be an array of two integers"},
      {"missing", R"({"a":{"dtype":"U8","shape":[8]}})", eight, "tensor `a`: missing field `data_offsets`"},
      {"unknown_field", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8],"x":1}})", eight,
       "tensor `a`: unknown field `x`"},
      {"metadata", R"({"__metadata__":{"k":1}})", "", "`__metadata__` value of `k` must be a string"},
      {"huge_shape", R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", eight,
       "tensor `a`: `shape` spans more than 2^48 elements"},
  };
  for (const Case& c : cases) {
    const std::string path = file_of(c.file, c.header, c.data);
    const std::string message = open_error(path);
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << c.file << ": " << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.file << ": " << message;
  }
}

TEST_F(SafetensorsTest, HeaderLengthIsCheckedBeforeAnythingIsRead) {
  // 100,000,001 bytes of header claimed: over the limit, refused without reading them.
  std::string prefix(8, '\0');
  const uint64_t over = kMaxHeaderBytes + 1;
  std::memcpy(prefix.data(), &over, 8);
  const std::string path = (folder_ / "huge").string();
  std::ofstream(path, std::ios::binary) << prefix << "{}";
  EXPECT_NE(open_error(path).find("header of 100000001 bytes is over the format's limit of 100000000"),
            std::string::npos);

  const uint64_t past_end = 64;
  std::memcpy(prefix.data(), &past_end, 8);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << prefix << "{}";
  EXPECT_NE(open_error(path).find("header of 64 bytes runs past the end of the file (10 bytes"), std::string::npos);

  std::ofstream(path, std::ios::binary | std::ios::trunc) << "abc";
  EXPECT_NE(open_error(path).find("only 3 bytes, too short for the 8-byte header length"), std::string::npos);
}

TEST_F(SafetensorsTest, AFileThatShrinksAfterOpenIsDataLossOnRead) {
  const std::string path = file_of("shrinks", R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", "abcdefgh");
  const Reader reader(path);
  fs::resize_file(path, fs::file_size(path) - 4);
  std::vector<char> bytes(8);
  try {
    reader.read(0, 0, bytes.data(), bytes.size());
    ADD_FAILURE() << "a short read was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_DATA_LOSS);
    EXPECT_NE(std::string(e.what()).find(path + ": ends at byte"), std::string::npos) << e.what();
  }
}

TEST_F(SafetensorsTest, IndexMustAgreeWithItsShards) {
  std::vector<float> values(4, 1.0f);
  Tensor view(values.data(), sdk::kFloat32, {4});
  const std::string destination = (folder_ / "ckpt").string();
  {
    Writer writer(destination, 32, {}, nullptr);  // [a b] [c], 16 bytes each
    writer.add("a", view.view);
    writer.add("b", view.view);
    writer.add("c", view.view);
    writer.finalize();
  }
  const fs::path index = fs::path(destination) / kIndexFile;
  const std::string good = text_of(index);
  const auto with_index = [&](const std::string& text) {
    std::ofstream(index, std::ios::trunc) << text;
    return open_error(destination);
  };
  EXPECT_EQ(with_index(good), "");
  // An index of `total_size` placing tensors a, b, c in shards (1 or 2; 0 for none), and
  // what opening it must say.
  const auto index_of = [](int total_size, int a, int b, int c) {
    std::string map;
    const char* names[] = {"a", "b", "c"};
    const int shards[] = {a, b, c};
    for (int i = 0; i < 3; ++i) {
      if (shards[i] == 0) continue;
      map += std::string(map.empty() ? "" : ",") + "\"" + names[i] + "\":\"model-0000" + std::to_string(shards[i]) +
             "-of-00002.safetensors\"";
    }
    return "{\"metadata\":{\"total_size\":" + std::to_string(total_size) + "},\"weight_map\":{" + map + "}}";
  };
  const std::string one = "model-00001-of-00002.safetensors", two = "model-00002-of-00002.safetensors";
  const std::pair<std::string, std::string> cases[] = {
      {index_of(32, 1, 0, 2), "`b` of " + one + " is missing from `weight_map`"},
      {index_of(48, 1, 1, 1), "`weight_map` puts `c` in " + one + ", which does not hold it"},
      {index_of(48, 1, 2, 2), "`weight_map` puts `b` in " + two + ", but it is in " + one},
      {index_of(47, 1, 1, 2), "`metadata.total_size` is 47, but the shards hold 48 bytes of tensors"},
      {R"({"metadata":{"total_size":32},"weight_map":{"a":"../etc/passwd"}})", "not a file in the checkpoint's folder"},
      {R"({"metadata":{"total_size":32},"weight_map":{"a":"gone.safetensors"}})",
       "gone.safetensors: cannot open: No such file or directory"},
      {R"({"weight_map":{}})", "missing `metadata.total_size`"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = with_index(text);
    EXPECT_NE(message.find(expected), std::string::npos) << text << ": " << message;
  }
}

}  // namespace
}  // namespace dopant::safetensors
