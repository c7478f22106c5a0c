// adamw-chunked-offload against adamw on the same model: after three steps (two param
// groups, one with configured and one with explicit hyper-parameters, varying lr_scale and
// grad_scale) parameters and exported state are identical bit for bit, for fp32, bf16 and
// fp16, with chunks smaller than every tensor of the first group, between its sizes and
// larger than the whole model, and offload fractions 0, 0.5 and 1. State exported by one
// plugin and imported into the other continues bit-identically.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "offload_harness.hpp"

namespace dopant::offload_testing {
namespace {

// Group 0: 150001, 1000003 and 400007 elements (8 or 12 bytes of state each, so more than
// 1 MiB); group 1: odd small tensors.
const std::vector<std::vector<uint64_t>> kModel = {{150001, 1000003, 400007}, {33, 1, 4099}};

std::string offload_table(const std::string& chunk, double fraction) {
  return "plugin = \"adamw-chunked-offload\"\nchunk = \"" + chunk +
         "\"\noffload_fraction = " + std::to_string(fraction);
}

class BitIdentity
    : public ::testing::TestWithParam<std::tuple<DLDataType, std::string, double>> {};

TEST_P(BitIdentity, ParametersAndStateEqualAdamwAfterThreeSteps) {
  const auto& [dtype, chunk, fraction] = GetParam();
  Harness initial;
  const std::vector<unsigned char> start =
      DeviceModel(initial.host(), dtype, kModel).parameters();
  const TrainResult adamw = train("cpu", dtype, kModel, "plugin = \"adamw\"", 3);
  const TrainResult offload = train("cpu", dtype, kModel, offload_table(chunk, fraction), 3);
  ASSERT_NE(adamw.parameters, start) << "the steps changed nothing";
  EXPECT_EQ(offload.parameters, adamw.parameters);
  EXPECT_EQ(offload.state.size(), adamw.state.size());
  for (const auto& [key, bytes] : adamw.state) {
    const auto found = offload.state.find(key);
    ASSERT_NE(found, offload.state.end()) << key << " not exported";
    EXPECT_EQ(found->second, bytes) << key << " differs";
  }
}

std::string dtype_name(DLDataType dtype) {
  return dtype.bits == 32 ? "fp32" : dtype.code == kDLBfloat ? "bf16" : "fp16";
}

INSTANTIATE_TEST_SUITE_P(
    Offload, BitIdentity,
    ::testing::Combine(::testing::Values(kFp32, kBf16, kFp16),
                       ::testing::Values("1MiB", "6MiB", "64MiB"),
                       ::testing::Values(0.0, 0.5, 1.0)),
    [](const auto& info) {
      const std::string& chunk = std::get<1>(info.param);
      return dtype_name(std::get<0>(info.param)) + "_chunk" + chunk.substr(0, chunk.size() - 3) +
             "MiB_fraction" + std::to_string(static_cast<int>(std::get<2>(info.param) * 100));
    });

// Two steps of `from`, its state imported into a fresh `to` on the same parameters: one more
// step of each gives the same parameters and state.
void expect_import_continues(DLDataType dtype, const std::string& from, const std::string& to) {
  Harness harness;
  DeviceModel model(harness.host(), dtype, kModel);
  ExportedState state;
  std::vector<unsigned char> after_two;
  TrainResult continued;
  {
    Optimizer first(harness.runtime(), from);
    for (size_t g = 0; g < model.group_count(); ++g) ASSERT_EQ(first.add_group(model.group(g)).code, DPT_OK);
    run_steps(first, model, 1, 2);
    state = first.export_state();
    after_two = model.parameters();
    run_steps(first, model, 3, 3);
    continued = TrainResult{model.parameters(), first.export_state()};
  }
  model.restore_parameters(after_two);
  Optimizer second(harness.runtime(), to);
  for (size_t g = 0; g < model.group_count(); ++g) ASSERT_EQ(second.add_group(model.group(g)).code, DPT_OK);
  const Outcome imported = second.import_all(state);
  ASSERT_EQ(imported.code, DPT_OK) << imported.message;
  run_steps(second, model, 3, 3);
  EXPECT_EQ(model.parameters(), continued.parameters);
  EXPECT_EQ(second.export_state(), continued.state);
}

TEST(StateTransfer, AdamwStateImportedIntoOffloadContinuesBitIdentically) {
  for (DLDataType dtype : {kFp32, kBf16}) {
    expect_import_continues(dtype, "plugin = \"adamw\"", offload_table("1MiB", 1.0));
  }
}

TEST(StateTransfer, OffloadStateImportedIntoAdamwContinuesBitIdentically) {
  for (DLDataType dtype : {kFp32, kFp16}) {
    expect_import_continues(dtype, offload_table("6MiB", 0.5), "plugin = \"adamw\"");
  }
}

}  // namespace
}  // namespace dopant::offload_testing
