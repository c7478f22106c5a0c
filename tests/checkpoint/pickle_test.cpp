// The safe pickle reader: a DCP .metadata and a torch.save data.pkl written by PyTorch 1.13
// (tests/checkpoint/fixtures/make_pickle_fixtures.py) read into the values PyTorch stored;
// pickles that call os.system or builtins.eval are refused where they name them, with
// nothing executed; every malformed pickle is refused naming the source and the byte.
#include "dopant/pickle/pickle.hpp"

#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace dopant::pickle {
namespace {

namespace fs = std::filesystem;
using Kind = Node::Kind;
using namespace std::string_literals;  // pickles hold NUL bytes

const fs::path kFixtures = DOPANT_PICKLE_FIXTURES;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The integers of a tuple (torch.Size's argument, offsets, sizes).
std::vector<int64_t> integers(const Node& tuple) {
  EXPECT_EQ(tuple.kind, Kind::tuple);
  std::vector<int64_t> values;
  for (const Node* item : tuple.items) {
    EXPECT_EQ(item->kind, Kind::integer);
    values.push_back(item->integer);
  }
  return values;
}

// torch.Size((a, b, ...)) as a vector.
std::vector<int64_t> size_of(const Node& call) {
  EXPECT_EQ(call.qualified_name(), "torch.Size");
  if (call.kind != Kind::call || call.items[1]->items.size() != 1) return {};
  return integers(*call.items[1]->items[0]);
}

struct Refusal {
  dpt_code code = DPT_OK;
  std::string message;
};
Refusal refusal_of(const std::string& bytes, const std::string& source = "test.pkl") {
  try {
    read(bytes, source);
  } catch (const sdk::Error& e) {
    return {e.code(), e.what()};
  }
  return {};
}

TEST(Pickle, ReadsTheMetadataOfADistributedCheckpointSavedByPyTorch113) {
  const Document document = read(bytes_of(kFixtures / "dcp_small" / ".metadata"), ".metadata");
  const Node& metadata = document.root();
  ASSERT_EQ(metadata.kind, Kind::object);
  EXPECT_EQ(metadata.qualified_name(), "torch.distributed._shard.checkpoint.metadata.Metadata");
  ASSERT_NE(metadata.state, nullptr);

  const Node* tensors = metadata.state->find("state_dict_metadata");
  ASSERT_NE(tensors, nullptr);
  ASSERT_EQ(tensors->kind, Kind::dict);
  const Node* embed = tensors->find("embed.weight");
  ASSERT_NE(embed, nullptr);
  EXPECT_EQ(embed->qualified_name(), "torch.distributed._shard.checkpoint.metadata.TensorStorageMetadata");
  EXPECT_EQ(size_of(*embed->state->find("size")), (std::vector<int64_t>{2, 3}));
  const Node* properties = embed->state->find("properties");
  ASSERT_NE(properties, nullptr);
  ASSERT_NE(properties->state, nullptr);  // TensorProperties' state is a tuple, dtype first
  ASSERT_EQ(properties->state->kind, Kind::tuple);
  EXPECT_EQ(properties->state->items[0]->qualified_name(), "torch.float32");
  const Node* chunks = embed->state->find("chunks");
  ASSERT_EQ(chunks->kind, Kind::list);
  ASSERT_EQ(chunks->items.size(), 1u);
  EXPECT_EQ(size_of(*chunks->items[0]->state->find("offsets")), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(size_of(*chunks->items[0]->state->find("sizes")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensors->find("layers.0.bias")->state->find("properties")->state->items[0]->qualified_name(),
            "torch.float16");

  // storage_data: MetadataIndex -> _StorageInfo(relative_path, offset, length); each length
  // is the size of the file PyTorch wrote, since each tensor has a file of its own here.
  const Node* storage = metadata.state->find("storage_data");
  ASSERT_EQ(storage->kind, Kind::dict);
  ASSERT_EQ(storage->items.size(), 4u);
  std::vector<std::string> fqns;
  for (size_t i = 0; i < storage->items.size(); i += 2) {
    const Node& index = *storage->items[i];
    const Node& info = *storage->items[i + 1];
    EXPECT_EQ(index.qualified_name(), "torch.distributed._shard.checkpoint.metadata.MetadataIndex");
    fqns.push_back(index.state->find("fqn")->text);
    EXPECT_EQ(info.qualified_name(), "torch.distributed._shard.checkpoint.filesystem._StorageInfo");
    const std::string file = info.state->find("relative_path")->text;
    EXPECT_EQ(info.state->find("offset")->integer, 0);
    EXPECT_EQ(static_cast<uint64_t>(info.state->find("length")->integer), fs::file_size(kFixtures / "dcp_small" / file))
        << file;
  }
  EXPECT_EQ(fqns, (std::vector<std::string>{"embed.weight", "layers.0.bias"}));
}

TEST(Pickle, ReadsTheDataPickleOfTorchSave) {
  const Document document = read(bytes_of(kFixtures / "torch_save_small.data.pkl"), "data.pkl");
  const Node& root = document.root();
  ASSERT_EQ(root.kind, Kind::dict);
  EXPECT_EQ(root.find("step")->integer, 7);
  const Node* w = root.find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->qualified_name(), "torch._utils._rebuild_tensor_v2");
  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)
  const Node& args = *w->items[1];
  ASSERT_EQ(args.items.size(), 6u);
  ASSERT_EQ(args.items[0]->kind, Kind::persistent_id);
  const Node& id = *args.items[0]->items[0];  // ('storage', torch.FloatStorage, key, location, numel)
  ASSERT_EQ(id.items.size(), 5u);
  EXPECT_EQ(id.items[0]->text, "storage");
  EXPECT_EQ(id.items[1]->qualified_name(), "torch.FloatStorage");
  EXPECT_EQ(id.items[2]->text, "0");
  EXPECT_EQ(id.items[3]->text, "cpu");
  EXPECT_EQ(id.items[4]->integer, 6);
  EXPECT_EQ(args.items[1]->integer, 0);
  EXPECT_EQ(integers(*args.items[2]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(integers(*args.items[3]), (std::vector<int64_t>{3, 1}));
  EXPECT_FALSE(args.items[4]->boolean);
  EXPECT_EQ(args.items[5]->kind, Kind::dict);  // OrderedDict() of backward hooks
}

TEST(Pickle, PicklesThatCallSystemOrEvalAreRefusedWhereTheyNameIt) {
  const Refusal system = refusal_of(bytes_of(kFixtures / "hostile_os_system.pkl"), "hostile_os_system.pkl");
  EXPECT_EQ(system.code, DPT_PERMISSION_DENIED);
  EXPECT_EQ(system.message,
            "hostile_os_system.pkl: byte 19: global `posix.system` is not on the allow-list; nothing was executed");
  const Refusal eval = refusal_of(bytes_of(kFixtures / "hostile_eval.pkl"), "hostile_eval.pkl");
  EXPECT_EQ(eval.code, DPT_PERMISSION_DENIED);
  EXPECT_NE(eval.message.find("global `builtins.eval` is not on the allow-list"), std::string::npos) << eval.message;
  // The same by hand: GLOBAL 'os system', and getattr used to reach a function by name.
  EXPECT_EQ(refusal_of("\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00ls\x85R."s).message,
            "test.pkl: byte 2: global `os.system` is not on the allow-list; nothing was executed");
  EXPECT_NE(refusal_of("\x80\x02" "cbuiltins\ngetattr\n" "X\x01\x00\x00\x00" "xX\x05\x00\x00\x00upper\x86R."s).message.find(
                "builtins.getattr is allowed only on an allow-listed class and a name"),
            std::string::npos);
}

TEST(Pickle, MalformedPicklesAreRefusedNamingSourceAndByte) {
  const std::string metadata = bytes_of(kFixtures / "dcp_small" / ".metadata");
  const struct {
    std::string bytes;
    const char* expected;
  } cases[] = {
      {metadata.substr(0, metadata.size() / 2), "truncated"},
      {"", "test.pkl: byte 0: truncated: needs 1 more bytes"},
      {"\x80\x02X\xff\xff\xff\x7f", "test.pkl: byte 2: truncated: needs 2147483647 more bytes"},
      {"\x80\x02h\x05.", "test.pkl: byte 2: memo index 5 was never stored"},
      {"\x80\x02i", "test.pkl: byte 2: opcode 0x69 is not one this reader accepts"},
      {"\x80\x02NN.", "test.pkl: byte 4: STOP with 2 values on the stack"},
      {"\x80\x02" "a", "test.pkl: byte 2: stack underflow"},
      {"\x80\x02NN" "a.", "test.pkl: byte 4: APPEND on a value that is not a list"},
      {"\x80\x02\x8a\x09" "123456789.", "test.pkl: byte 2: integer of 9 bytes is wider than 64 bits"},
      {"\x80\x02" "t.", "test.pkl: byte 2: no MARK to pop to"},
      {"\x80\x09N.", "test.pkl: byte 0: pickle protocol 9 is newer than 5"},
      {"\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."s, "test.pkl: byte 2: truncated: FRAME of 255 bytes runs past the end"},
      {"\x80\x02]N(N" "a.", "test.pkl: byte 6: APPEND on an empty stack"},
  };
  for (const auto& c : cases) {
    const Refusal refusal = refusal_of(c.bytes);
    EXPECT_EQ(refusal.code, DPT_DATA_LOSS) << c.expected << ": " << refusal.message;
    EXPECT_NE(refusal.message.find(c.expected), std::string::npos) << refusal.message;
  }
}

TEST(Pickle, IntegersAndFloatsDecodeExactly) {
  // LONG1 of 8 bytes: -2; BININT: -1; BININT2: 65535; BINFLOAT (big-endian): 1.5.
  const Document document = read("\x80\x02(\x8a\x08\xfe\xff\xff\xff\xff\xff\xff\xff"
                                 "J\xff\xff\xff\xff" "M\xff\xff" "G\x3f\xf8\x00\x00\x00\x00\x00\x00" "t."s,
                                 "numbers");
  const Node& tuple = document.root();
  ASSERT_EQ(tuple.items.size(), 4u);
  EXPECT_EQ(tuple.items[0]->integer, -2);
  EXPECT_EQ(tuple.items[1]->integer, -1);
  EXPECT_EQ(tuple.items[2]->integer, 65535);
  EXPECT_EQ(tuple.items[3]->floating, 1.5);
}

}  // namespace
}  // namespace dopant::pickle
