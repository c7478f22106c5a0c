// The Megatron legacy reader on checkpoints PyTorch 1.13 wrote with Megatron's names and
// layouts (fixtures/make_legacy_fixtures.py): every merged global tensor, put together from
// its chunks, equals bit for bit the whole tensor the script cut the ranks from (its
// NAME.expected.safetensors, read by the safetensors reader). Dense TP 2 × PP 2 with tensors
// at storage offsets, MoE TP 2 × EP 2, MoE TP 1 × EP 2 × PP 2 with a virtual pipeline. A
// missing rank folder, shapes that disagree across TP ranks, a name held twice, a hostile
// pickle, a nested dict shared under two keys and a truncated rank file are refused by
// name.
#include "dopant/megatron_legacy/parameter_names.hpp"
#include "dopant/megatron_legacy/reader.hpp"

#include <dopant/safetensors/reader.hpp>
#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace dopant::megatron_legacy {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(DOPANT_LEGACY_FIXTURES);

struct Refusal {
  dpt_code code = DPT_OK;
  std::string message;
};

Refusal refusal_of(const fs::path& path) {
  try {
    Reader reader(path.string());
  } catch (const sdk::Error& e) {
    return {e.code(), e.what()};
  }
  return {};
}

uint64_t element_count(const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (const int64_t extent : shape) count *= static_cast<uint64_t>(extent);
  return count;
}

// The global tensor `t` put together from its chunks (each row-major over its sizes), and
// how many times each element was written.
std::vector<unsigned char> assemble(const Reader& reader, uint64_t t, std::vector<int>& writes) {
  const auto& tensor = reader.listing().tensors[t];
  const size_t item = sdk::element_bytes(tensor.dtype);
  const uint64_t total = element_count(tensor.shape);
  std::vector<unsigned char> whole(total * item);
  writes.assign(total, 0);
  for (uint64_t c = 0; c < tensor.chunks.size(); ++c) {
    const auto& chunk = tensor.chunks[c];
    std::vector<unsigned char> bytes(chunk.byte_length);
    reader.read(t, c, bytes.data(), bytes.size());
    EXPECT_EQ(bytes.size(), element_count(chunk.sizes) * item) << tensor.name;
    for (uint64_t i = 0; i < element_count(chunk.sizes); ++i) {
      // The chunk's i-th element (row-major over its sizes) -> its global flat index.
      uint64_t rest = i, global = 0, stride = 1;
      for (size_t d = tensor.shape.size(); d-- > 0;) {
        const uint64_t local = rest % static_cast<uint64_t>(chunk.sizes[d]);
        rest /= static_cast<uint64_t>(chunk.sizes[d]);
        global += (static_cast<uint64_t>(chunk.offsets[d]) + local) * stride;
        stride *= static_cast<uint64_t>(tensor.shape[d]);
      }
      std::memcpy(&whole[global * item], &bytes[i * item], item);
      ++writes[global];
    }
  }
  return whole;
}

void expect_equals_reference(const std::string& fixture) {
  const Reader reader((kFixtures / fixture).string());
  const safetensors::Reader reference((kFixtures / (fixture + ".expected.safetensors")).string());
  std::map<std::string, uint64_t> expected;
  for (uint64_t t = 0; t < reference.listing().tensors.size(); ++t) expected[reference.listing().tensors[t].name] = t;
  ASSERT_EQ(reader.listing().tensors.size(), expected.size()) << fixture;
  for (uint64_t t = 0; t < reader.listing().tensors.size(); ++t) {
    const auto& tensor = reader.listing().tensors[t];
    SCOPED_TRACE(fixture + ": " + tensor.name);
    ASSERT_EQ(expected.count(tensor.name), 1u);
    const auto& want = reference.listing().tensors[expected.at(tensor.name)];
    EXPECT_TRUE(sdk::same_dtype(tensor.dtype, want.dtype));
    ASSERT_EQ(tensor.shape, want.shape);
    std::vector<int> writes;
    const std::vector<unsigned char> got = assemble(reader, t, writes);
    EXPECT_EQ(std::count(writes.begin(), writes.end(), 1), static_cast<long>(writes.size()))
        << "every element exactly once";
    std::vector<unsigned char> bytes(want.chunks[0].byte_length);
    reference.read(expected.at(tensor.name), 0, bytes.data(), bytes.size());
    EXPECT_EQ(got, bytes);
  }
}

TEST(MegatronLegacy, DenseTp2Pp2MergesToTheWholeModel) { expect_equals_reference("llama_tp2_pp2"); }
TEST(MegatronLegacy, MoeTp2Ep2MergesToTheWholeModel) { expect_equals_reference("moe_tp2_ep2"); }
TEST(MegatronLegacy, MoeEp2Pp2WithVirtualPipelineMergesToTheWholeModel) { expect_equals_reference("moe_tp1_ep2_pp2"); }

// A gated linear_fc1 under TP: [gate_r; up_r] per rank becomes two chunks per rank at the
// global rows of gate_r and up_r, each a contiguous byte range of the rank's storage.
TEST(MegatronLegacy, AGatedFc1IsListedAsAGateAndAnUpChunkPerRank) {
  const Reader reader((kFixtures / "llama_tp2_pp2").string());
  const auto& tensors = reader.listing().tensors;
  const auto fc1 = std::find_if(tensors.begin(), tensors.end(),
                                [](const auto& t) { return t.name == "decoder.layers.2.mlp.linear_fc1.weight"; });
  ASSERT_NE(fc1, tensors.end());
  EXPECT_EQ(fc1->shape, (std::vector<int64_t>{12, 8}));  // 2 × ffn 6, hidden 8
  ASSERT_EQ(fc1->chunks.size(), 4u);
  const std::vector<int64_t> rows = {fc1->chunks[0].offsets[0], fc1->chunks[1].offsets[0], fc1->chunks[2].offsets[0],
                                     fc1->chunks[3].offsets[0]};
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 6, 3, 9}));  // gate_0, up_0, gate_1, up_1
  EXPECT_EQ(fc1->chunks[1].byte_offset, fc1->chunks[0].byte_offset + 48);  // up_0 follows gate_0: 3 × 8 bf16
  EXPECT_NE(fc1->chunks[0].file.find("iter_0000010/mp_rank_00_001/model_optim_rng.pt"), std::string::npos);
}

TEST(MegatronLegacy, AnIterationFolderAndAReleaseFolderReadAsTheRoot) {
  const Reader root((kFixtures / "moe_tp2_ep2").string());
  const Reader iteration((kFixtures / "moe_tp2_ep2" / "iter_0000010").string());
  ASSERT_EQ(iteration.listing().tensors.size(), root.listing().tensors.size());
  for (size_t t = 0; t < root.listing().tensors.size(); ++t) {
    EXPECT_EQ(iteration.listing().tensors[t].name, root.listing().tensors[t].name);
    EXPECT_EQ(iteration.listing().tensors[t].chunks.size(), root.listing().tensors[t].chunks.size());
  }
  std::string pattern = (fs::temp_directory_path() / "dopant-legacy-test-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path copy = fs::path(pattern) / "release_checkpoint";
  fs::copy(kFixtures / "moe_tp2_ep2", copy, fs::copy_options::recursive);
  fs::rename(copy / "iter_0000010", copy / "release");
  std::ofstream(copy / "latest_checkpointed_iteration.txt", std::ios::trunc) << "release\n";
  const Reader release(copy.string());
  EXPECT_EQ(release.listing().tensors.size(), root.listing().tensors.size());
  EXPECT_EQ(release.listing().metadata[1], (std::pair<std::string, std::string>{"folder", (copy / "release").string()}));
  std::ofstream(copy / "latest_checkpointed_iteration.txt", std::ios::trunc) << "../../etc";
  EXPECT_NE(refusal_of(copy).message.find("`../../etc` is neither an iteration number nor \"release\""),
            std::string::npos);
  fs::remove_all(pattern);
  EXPECT_TRUE(looks_like_legacy_checkpoint((kFixtures / "moe_tp2_ep2").string()));
  EXPECT_FALSE(looks_like_legacy_checkpoint(kFixtures.string()));
}

class MegatronLegacyDamaged : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-legacy-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    copy_ = fs::path(pattern) / "llama_tp2_pp2";
    fs::copy(kFixtures / "llama_tp2_pp2", copy_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(copy_.parent_path()); }
  fs::path copy_;
};

TEST_F(MegatronLegacyDamaged, AMissingRankFolderIsRefusedNamingIt) {
  fs::remove_all(copy_ / "iter_0000010" / "mp_rank_01_001");
  const Refusal refusal = refusal_of(copy_);
  EXPECT_EQ(refusal.code, DPT_NOT_FOUND);
  EXPECT_NE(refusal.message.find((copy_ / "iter_0000010" / "mp_rank_01_001").string() + ": missing (" +
                                 (copy_ / "iter_0000010" / "mp_rank_00_000" / "model_optim_rng.pt").string() +
                                 " declares TP 2, PP 2, EP 1)"),
            std::string::npos)
      << refusal.message;
}

TEST_F(MegatronLegacyDamaged, ATruncatedRankFileIsRefusedNamingIt) {
  const fs::path file = copy_ / "iter_0000010" / "mp_rank_01_000" / "model_optim_rng.pt";
  fs::resize_file(file, fs::file_size(file) / 2);
  const Refusal refusal = refusal_of(copy_);
  EXPECT_EQ(refusal.code, DPT_DATA_LOSS);
  EXPECT_NE(refusal.message.find(file.string() + ": archive at byte 0: no zip end-of-directory record"), std::string::npos)
      << refusal.message;
}

TEST(MegatronLegacyBad, ShapesThatDisagreeAcrossTpRanksAreRefused) {
  const Refusal refusal = refusal_of(kFixtures / "bad_tp_shapes");
  EXPECT_EQ(refusal.code, DPT_DATA_LOSS);
  EXPECT_NE(refusal.message.find("mp_rank_01_000/model_optim_rng.pt: tensor "
                                 "`decoder.layers.0.self_attention.linear_proj.weight`: its shape or dtype on TP rank 1 "
                                 "is inconsistent with TP rank 0's"),
            std::string::npos)
      << refusal.message;
}

TEST(MegatronLegacyBad, ATensorHeldByTwoStagesIsADuplicate) {
  const Refusal refusal = refusal_of(kFixtures / "bad_duplicate");
  EXPECT_EQ(refusal.code, DPT_DATA_LOSS);
  EXPECT_NE(refusal.message.find("mp_rank_00_001/model_optim_rng.pt: tensor `decoder.final_layernorm.weight` is also "
                                 "held by "),
            std::string::npos)
      << refusal.message;
  EXPECT_NE(refusal.message.find("mp_rank_00_000/model_optim_rng.pt (duplicate tensor name)"), std::string::npos)
      << refusal.message;
}

TEST(MegatronLegacyBad, APickleThatCallsSystemIsRefusedNamingTheRankFile) {
  const Refusal refusal = refusal_of(kFixtures / "bad_hostile");
  EXPECT_EQ(refusal.code, DPT_PERMISSION_DENIED);
  EXPECT_NE(refusal.message.find("bad_hostile/iter_0000010/mp_rank_00/model_optim_rng.pt: byte "), std::string::npos)
      << refusal.message;
  EXPECT_NE(refusal.message.find("global `posix.system` is not on the allow-list; nothing was executed"),
            std::string::npos)
      << refusal.message;
}

TEST(MegatronLegacyBad, ADictSharedUnderTwoKeysIsRefused) {
  const Refusal refusal = refusal_of(kFixtures / "bad_shared_dict");
  EXPECT_EQ(refusal.code, DPT_DATA_LOSS);
  EXPECT_NE(refusal.message.find("bad_shared_dict/iter_0000010/mp_rank_00/model_optim_rng.pt: model: a dict appears "
                                 "twice in the state dict (not a tree)"),
            std::string::npos)
      << refusal.message;
}

TEST(MegatronLegacyBad, AFolderWithoutRanksIsNotALegacyCheckpoint) {
  const Refusal refusal = refusal_of(kFixtures);
  EXPECT_EQ(refusal.code, DPT_INVALID_ARGUMENT);
  EXPECT_NE(refusal.message.find("not a Megatron legacy checkpoint"), std::string::npos) << refusal.message;
}

TEST(MegatronParameterNames, TensorParallelSplitFollowsTheLayerKind) {
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_qkv.weight", true), TensorSplit::rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_qkv.bias", true), TensorSplit::rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_proj.weight", true), TensorSplit::columns);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_proj.bias", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.linear_fc1.weight", true), TensorSplit::gated_rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.linear_fc1.weight", false), TensorSplit::rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.experts.linear_fc1.weight17", true), TensorSplit::gated_rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.experts.linear_fc2.weight17", true), TensorSplit::columns);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.linear_fc2.bias", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("decoder.layers.3.mlp.router.expert_bias", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_kv_up_proj.weight", true), TensorSplit::rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.linear_kv_down_proj.weight", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.kv_layernorm.weight", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("decoder.layers.3.input_layernorm.weight", true), TensorSplit::whole);
  EXPECT_EQ(tensor_split("embedding.word_embeddings.weight", true), TensorSplit::rows);
  EXPECT_EQ(tensor_split("output_layer.weight", true), TensorSplit::rows);
  EXPECT_EQ(tensor_split("decoder.layers.3.self_attention.core_attention.scale", true), TensorSplit::unknown);
}

TEST(MegatronParameterNames, LayerAndExpertNumbersAreFoundAndReplaced) {
  const std::string sequential = "decoder.layers.12.mlp.experts.local_experts.3.linear_fc1.weight";
  const auto layer = layer_number(sequential);
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->value, 12u);
  EXPECT_EQ(renumbered(sequential, *layer, 40), "decoder.layers.40.mlp.experts.local_experts.3.linear_fc1.weight");
  const auto expert = expert_number(sequential);
  ASSERT_TRUE(expert.has_value());
  EXPECT_EQ(renumbered(sequential, *expert, 131), "decoder.layers.12.mlp.experts.local_experts.131.linear_fc1.weight");
  const std::string grouped = "decoder.layers.0.mlp.experts.linear_fc2.weight7";
  ASSERT_TRUE(expert_number(grouped).has_value());
  EXPECT_EQ(renumbered(grouped, *expert_number(grouped), 15), "decoder.layers.0.mlp.experts.linear_fc2.weight15");
  EXPECT_FALSE(expert_number("decoder.layers.0.mlp.linear_fc2.weight").has_value());
  EXPECT_FALSE(layer_number("mtp.layers.0.enorm.weight").has_value());
  EXPECT_FALSE(layer_number("decoder.layers.x.mlp").has_value());
}

}  // namespace
}  // namespace dopant::megatron_legacy
