// `dopant inspect`: the built-in checkpoint plugins list a DCP checkpoint written by
// PyTorch 1.13, a Megatron legacy checkpoint and a safetensors file written by Python; a
// path no plugin reads fails with every plugin's reason.
#include "command_output.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using dopant::testing_support::command_output;

const std::string kFixtures = DOPANT_CHECKPOINT_FIXTURES;

TEST(CliInspect, ListsADcpCheckpointWithItsChunks) {
  const auto [out, status] = command_output(std::string(DOPANT_CLI) + " inspect " + kFixtures + "/pickle/dcp_small");
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("dcp_small: 2 tensors (read by `dcp`)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nembed.weight  fp32  [2, 3]  1 chunk\n  [0, 0] + [2, 3]  " + kFixtures +
                     "/pickle/dcp_small/__0_0.distcp @ "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nlayers.0.bias  fp16  [4]  1 chunk\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" + 24 bytes\n"), std::string::npos) << out;  // 6 fp32
}

TEST(CliInspect, ListsAMegatronLegacyCheckpointWithItsRanksMerged) {
  const std::string root = kFixtures + "/legacy/llama_tp2_pp2";
  const auto [out, status] = command_output(std::string(DOPANT_CLI) + " inspect " + root);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("llama_tp2_pp2: 31 tensors (read by `megatron-legacy`)\n"), std::string::npos) << out;
  // Layer 1 of stage 1 is global layer 3; its fc2 is split by columns over the two TP ranks.
  EXPECT_NE(out.find("\ndecoder.layers.3.mlp.linear_fc2.weight  bf16  [8, 6]  2 chunks\n  [0, 0] + [8, 3]  " + root +
                     "/iter_0000010/mp_rank_00_001/model_optim_rng.pt @ "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n  [0, 3] + [8, 3]  " + root + "/iter_0000010/mp_rank_01_001/model_optim_rng.pt @ "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nmetadata args.num_query_groups = 2\n"), std::string::npos) << out;
}

TEST(CliInspect, ListsASafetensorsFileAndItsMetadata) {
  const auto [out, status] = command_output(std::string(DOPANT_CLI) + " inspect " + kFixtures + "/python_small.safetensors");
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("python_small.safetensors: 6 tensors (read by `safetensors`)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nmask  bool  [3]  1 chunk\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nstep  int64  []  1 chunk\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nmetadata format = pt\n"), std::string::npos) << out;
}

TEST(CliInspect, APathNoPluginReadsFailsWithEveryReason) {
  const auto [out, status] =
      command_output(std::string(DOPANT_CLI) + " inspect " + kFixtures + "/make_pickle_fixtures.py 2>&1");
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("make_pickle_fixtures.py: no checkpoint plugin reads it\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  dcp: "), std::string::npos) << out;
  EXPECT_NE(out.find("\n  megatron-legacy: " + kFixtures + "/make_pickle_fixtures.py: not a Megatron legacy checkpoint"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n  safetensors: " + kFixtures + "/make_pickle_fixtures.py: header of "), std::string::npos) << out;
}

}  // namespace
