// The generated Kimi-K2-shaped torch_dist checkpoint (lib/megatron_synthetic): our DCP reader
// lists the planned tensors and chunks and reads back, byte for byte, the values of the
// formula restated here; `dopant convert` (both strategies) turns it into HF tensors that
// equal slices of the same formula, found by an HF-side mapping restated here; PyTorch 1.13
// itself loads the `.metadata`, the items and common.pt (skipped without python3-torch).
// Existing and half-written destinations: nothing replaced, nothing left behind.
#include "command_output.hpp"

#include <dopant/dcp/reader.hpp>
#include <dopant/megatron_synthetic/generator.hpp>
#include <dopant/safetensors/reader.hpp>
#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace synth = dopant::megatron_synthetic;
using dopant::testing_support::command_output;

// The reference: the formula of generator.hpp, restated.
uint64_t reference_bits(uint64_t seed, const std::string& name, uint64_t index, uint32_t bytes) {
  uint64_t key = 0xCBF29CE484222325ull;
  for (const char c : name) key = (key ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  uint64_t z = (seed * 0x9E3779B97F4A7C15ull ^ key) + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return bytes == 2 ? 0x3F00u | (z & 0x807Fu) : 0x3F000000u | (z & 0x807FFFFFu);
}

// `count` elements of the reference tensor `name` from global row-major index `first`.
std::string reference_range(uint64_t seed, const std::string& name, uint64_t first, uint64_t count, uint32_t bytes) {
  std::string out(count * bytes, '\0');
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t bits = reference_bits(seed, name, first + i, bytes);
    std::memcpy(&out[i * bytes], &bits, bytes);
  }
  return out;
}

constexpr uint64_t kSeed = 7;
// 3 layers (1 dense), hidden 32, 4 experts in 2 EP chunks: about 200 kB.
synth::MoeShape small_shape() {
  synth::MoeShape s;
  s.layers = 3;
  s.dense_layers = 1;
  s.hidden = 32;
  s.experts = 4;
  s.expert_parallel = 2;
  s.vocab = 100;
  s.target_bytes = 200'000;
  s.seed = kSeed;
  return s;
}

class SyntheticCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("dopant-synthetic-test-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    generated_ = synth::generate(small_shape(), (folder_ / "ckpt").string());
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path iteration() const { return folder_ / "ckpt" / "iter_0000010"; }
  fs::path folder_;
  synth::Generated generated_;
};

TEST_F(SyntheticCheckpoint, OurReaderListsThePlanAndReadsTheFormulasValues) {
  const dopant::sdk::CheckpointListing plan = synth::plan_listing(small_shape());
  const dopant::dcp::Reader reader(iteration().string());
  const auto& tensors = reader.listing().tensors;
  ASSERT_EQ(tensors.size(), plan.tensors.size());
  uint64_t bytes = 0;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const auto& tensor = tensors[t];
    SCOPED_TRACE(tensor.name);
    EXPECT_EQ(tensor.name, plan.tensors[t].name);
    EXPECT_EQ(tensor.shape, plan.tensors[t].shape);
    ASSERT_EQ(tensor.chunks.size(), plan.tensors[t].chunks.size());
    const uint32_t element = tensor.dtype.bits / 8;
    EXPECT_EQ(element, tensor.name.find("expert_bias") != std::string::npos ? 4u : 2u);
    for (size_t c = 0; c < tensor.chunks.size(); ++c) {
      const auto& chunk = tensor.chunks[c];
      EXPECT_EQ(chunk.offsets, plan.tensors[t].chunks[c].offsets);
      EXPECT_EQ(fs::path(chunk.file).filename(), plan.tensors[t].chunks[c].file);
      std::string got(chunk.byte_length, '\0');
      reader.read(t, c, got.data(), got.size());
      bytes += got.size();
      // Row by row: a row of the chunk is contiguous in the global tensor.
      const size_t rank = tensor.shape.size();
      const uint64_t row = static_cast<uint64_t>(chunk.sizes[rank - 1]);
      std::string expected;
      std::vector<int64_t> at(rank, 0);
      for (uint64_t done = 0; done < got.size() / element; done += row) {
        uint64_t global = 0, stride = 1;
        for (size_t d = rank; d-- > 0;) {
          global += static_cast<uint64_t>(chunk.offsets[d] + at[d]) * stride;
          stride *= static_cast<uint64_t>(tensor.shape[d]);
        }
        expected += reference_range(kSeed, tensor.name, global, row, element);
        for (size_t d = rank - 1; d-- > 0;) {
          if (++at[d] < chunk.sizes[d]) break;
          at[d] = 0;
        }
      }
      EXPECT_TRUE(got == expected) << "chunk " << c << " differs from the formula";
    }
  }
  EXPECT_EQ(bytes, generated_.tensor_bytes);
  EXPECT_GT(bytes, 150'000u);  // the target was 200 kB: the ffn width was solved for it
  EXPECT_LT(bytes, 250'000u);
}

// One HF tensor: the contiguous element range [first, first + count) of a Megatron tensor.
struct HfSource {
  std::string megatron;
  uint64_t first;
};

// The Kimi-K2 mapping restated on whole tensors: every HF tensor, from its Megatron source.
std::map<std::string, HfSource> hf_sources(const synth::MoeShape& s, const synth::MoeDims& d) {
  const uint64_t h = s.hidden, f = static_cast<uint64_t>(d.moe_ffn), ffn = static_cast<uint64_t>(d.ffn);
  std::map<std::string, HfSource> out{{"model.embed_tokens.weight", {"embedding.word_embeddings.weight", 0}},
                                      {"model.norm.weight", {"decoder.final_layernorm.weight", 0}},
                                      {"lm_head.weight", {"output_layer.weight", 0}}};
  for (uint32_t layer = 0; layer < s.layers; ++layer) {
    const std::string m = "decoder.layers." + std::to_string(layer) + ".", p = "model.layers." + std::to_string(layer) + ".";
    const std::pair<const char*, const char*> same[] = {
        {"input_layernorm.weight", "input_layernorm.weight"},
        {"self_attn.q_a_proj.weight", "self_attention.linear_q_down_proj.weight"},
        {"self_attn.q_a_layernorm.weight", "self_attention.linear_q_up_proj.layer_norm_weight"},
        {"self_attn.q_b_proj.weight", "self_attention.linear_q_up_proj.weight"},
        {"self_attn.kv_a_proj_with_mqa.weight", "self_attention.linear_kv_down_proj.weight"},
        {"self_attn.kv_a_layernorm.weight", "self_attention.linear_kv_up_proj.layer_norm_weight"},
        {"self_attn.kv_b_proj.weight", "self_attention.linear_kv_up_proj.weight"},
        {"self_attn.o_proj.weight", "self_attention.linear_proj.weight"}};
    for (const auto& [hf, megatron] : same) out[p + hf] = {m + megatron, 0};
    if (layer < s.dense_layers) {
      out[p + "post_attention_layernorm.weight"] = {m + "mlp.linear_fc1.layer_norm_weight", 0};
      out[p + "mlp.gate_proj.weight"] = {m + "mlp.linear_fc1.weight", 0};  // rows [0, ffn)
      out[p + "mlp.up_proj.weight"] = {m + "mlp.linear_fc1.weight", ffn * h};
      out[p + "mlp.down_proj.weight"] = {m + "mlp.linear_fc2.weight", 0};
      continue;
    }
    out[p + "post_attention_layernorm.weight"] = {m + "pre_mlp_layernorm.weight", 0};
    out[p + "mlp.gate.weight"] = {m + "mlp.router.weight", 0};
    out[p + "mlp.gate.e_score_correction_bias"] = {m + "mlp.router.expert_bias", 0};
    out[p + "mlp.shared_experts.gate_proj.weight"] = {m + "mlp.shared_experts.linear_fc1.weight", 0};
    out[p + "mlp.shared_experts.up_proj.weight"] = {m + "mlp.shared_experts.linear_fc1.weight", f * h};
    out[p + "mlp.shared_experts.down_proj.weight"] = {m + "mlp.shared_experts.linear_fc2.weight", 0};
    for (uint64_t e = 0; e < s.experts; ++e) {  // fc1 [E, 2f, H], fc2 [E, H, f]
      const std::string x = p + "mlp.experts." + std::to_string(e) + ".";
      out[x + "gate_proj.weight"] = {m + "mlp.experts.experts.linear_fc1.weight", e * 2 * f * h};
      out[x + "up_proj.weight"] = {m + "mlp.experts.experts.linear_fc1.weight", e * 2 * f * h + f * h};
      out[x + "down_proj.weight"] = {m + "mlp.experts.experts.linear_fc2.weight", e * h * f};
    }
  }
  return out;
}

TEST_F(SyntheticCheckpoint, DopantConvertGivesTheFormulasValuesUnderBothStrategies) {
  const synth::MoeShape shape = small_shape();
  const std::map<std::string, HfSource> sources = hf_sources(shape, synth::dims_of(shape));
  for (const char* strategy : {"gather", "stream"}) {
    SCOPED_TRACE(strategy);
    const fs::path out = folder_ / (std::string("hf-") + strategy);
    // No flag: the vocabulary comes from common.pt's saved args.
    const auto [text, status] =
        command_output(std::string(DOPANT_CLI) + " convert --from megatron --to hf --model kimi-k2 --strategy " +
                       strategy + " --max-shard-size 60KB " + (folder_ / "ckpt").string() + " " + out.string() + " 2>&1");
    ASSERT_EQ(status, 0) << text;
    ASSERT_TRUE(fs::exists(out / "model.safetensors.index.json")) << "expected several shards";
    const dopant::safetensors::Reader reader(out.string());
    std::map<std::string, bool> seen;
    for (size_t t = 0; t < reader.listing().tensors.size(); ++t) {
      const auto& tensor = reader.listing().tensors[t];
      const auto source = sources.find(tensor.name);
      ASSERT_NE(source, sources.end()) << "unexpected HF tensor " << tensor.name;
      seen[tensor.name] = true;
      uint64_t count = 1;
      for (const int64_t extent : tensor.shape) count *= static_cast<uint64_t>(extent);
      const uint32_t element = tensor.dtype.bits / 8;
      std::string got(tensor.chunks[0].byte_length, '\0');
      reader.read(t, 0, got.data(), got.size());
      if (tensor.name == "model.embed_tokens.weight" || tensor.name == "lm_head.weight") {
        EXPECT_EQ(count, uint64_t{shape.vocab} * shape.hidden) << tensor.name << ": padding rows not cut";
      }
      EXPECT_TRUE(got == reference_range(kSeed, source->second.megatron, source->second.first, count, element))
          << tensor.name << " is not " << source->second.megatron << " from element " << source->second.first;
    }
    EXPECT_EQ(seen.size(), sources.size());
  }
}

TEST_F(SyntheticCheckpoint, AnExistingDestinationIsRefusedAndNothingIsLeftBeside) {
  std::ofstream(folder_ / "taken") << "mine";
  try {
    synth::generate(small_shape(), (folder_ / "taken").string());
    FAIL() << "an existing destination was accepted";
  } catch (const dopant::sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
  std::ifstream kept(folder_ / "taken");
  std::string text;
  kept >> text;
  EXPECT_EQ(text, "mine");
  for (const auto& entry : fs::directory_iterator(folder_)) {
    EXPECT_TRUE(entry.path().filename() == "ckpt" || entry.path().filename() == "taken") << entry.path();
  }
}

// PyTorch 1.13 loads the generated checkpoint through its own DCP reader
// (torch.distributed._shard.checkpoint.load_state_dict into whole tensors) and common.pt
// through torch.load, and writes every tensor's raw bytes, in name order, to one file.
TEST_F(SyntheticCheckpoint, PyTorchLoadsTheMetadataTheItemsAndTheArgs) {
  if (std::system((std::string(DOPANT_PYTHON3) + " -c 'import torch' > /dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << "python3-torch is not installed (" << DOPANT_PYTHON3 << " cannot import torch)";
  }
  const fs::path dump = folder_ / "torch.bin";
  const std::string script =
      "import sys; sys.path.insert(0, '" DOPANT_CHECKPOINT_FIXTURES "'); import torch_dcp_import\n"
      "import torch, torch.distributed._shard.checkpoint as dcp\n"
      "reader = dcp.FileSystemReader(sys.argv[1])\n"
      "metadata = reader.read_metadata()\n"
      "state = {k: torch.empty(v.size, dtype=v.properties.dtype) for k, v in metadata.state_dict_metadata.items()}\n"
      "dcp.load_state_dict(state, reader, no_dist=True)\n"
      "bits = {torch.bfloat16: torch.int16, torch.float32: torch.int32}\n"
      "with open(sys.argv[2], 'wb') as out:\n"
      "    for k in sorted(state): out.write(state[k].view(bits[state[k].dtype]).numpy().tobytes())\n"
      "args = torch.load(sys.argv[1] + '/common.pt')['args']\n"
      "print('vocab', args.vocab_size, 'experts', args.num_experts)\n";
  std::ofstream(folder_ / "load.py") << script;
  const auto [text, status] = command_output(std::string(DOPANT_PYTHON3) + " " + (folder_ / "load.py").string() + " " +
                                             iteration().string() + " " + dump.string() + " 2>&1");
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("vocab 100 experts 4"), std::string::npos) << text;
  std::string expected;
  std::map<std::string, const dopant::sdk::CheckpointListing::Tensor*> by_name;
  const dopant::sdk::CheckpointListing plan = synth::plan_listing(small_shape());
  for (const auto& tensor : plan.tensors) by_name[tensor.name] = &tensor;
  for (const auto& [name, tensor] : by_name) {
    uint64_t count = 1;
    for (const int64_t extent : tensor->shape) count *= static_cast<uint64_t>(extent);
    expected += reference_range(kSeed, name, 0, count, tensor->dtype.bits / 8);
  }
  std::ifstream in(dump, std::ios::binary);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str().size(), expected.size());
  EXPECT_TRUE(got.str() == expected) << "PyTorch read other values than the formula's";
}

}  // namespace
