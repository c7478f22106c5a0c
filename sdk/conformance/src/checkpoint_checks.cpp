// Checks of "dopant.checkpoint.draft/0" plugins: named fp32 host tensors written to a fresh path
// read back with the same names, dtypes, shapes and bytes.
#include <dopant/draft/checkpoint.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dopant::conformance {

namespace {

struct ReadTensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

dpt_error* collect(void* context, const char* name, const DLTensor* value) {
  auto& tensors = *static_cast<std::map<std::string, ReadTensor>*>(context);
  const char* data = sdk::data_as<const char>(*value);
  tensors[name] = ReadTensor{sdk::dtype_name(value->dtype),
                             std::vector<int64_t>(value->shape, value->shape + value->ndim),
                             std::vector<char>(data, data + sdk::byte_size(*value))};
  return nullptr;
}

std::filesystem::path fresh_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dopant-ckpt-XXXXXX").string();
  const char* made = mkdtemp(pattern.data());
  return made != nullptr ? std::filesystem::path(made) : std::filesystem::path();
}

void check_round_trip(const Target& target) {
  PluginInstance checkpoint(target);
  ASSERT_TRUE(checkpoint.ok());
  const std::filesystem::path directory = fresh_directory();
  ASSERT_FALSE(directory.empty()) << "cannot create a temporary directory";
  const std::string path = (directory / "checkpoint").string();

  std::vector<float> alpha = {1.5f, -2.0f, 3.25f};          // [3] fp32
  std::vector<float> beta = {0.0f, -0.0f, 1e-30f, 7.0f};    // [2, 2] fp32
  int64_t alpha_shape[] = {3}, alpha_strides[] = {1};
  int64_t beta_shape[] = {2, 2}, beta_strides[] = {2, 1};
  const DLTensor tensors[] = {
      {alpha.data(), {kDLCPU, 0}, 1, sdk::kFloat32, alpha_shape, alpha_strides, 0},
      {beta.data(), {kDLCPU, 0}, 2, sdk::kFloat32, beta_shape, beta_strides, 0}};
  const char* names[] = {"alpha", "layers.0.beta"};
  const auto& table = checkpoint.table<dpt_checkpoint_draft>();
  const std::string written =
      ok_or_message(table.write(checkpoint.handle(), path.c_str(), 2, names, tensors));
  std::map<std::string, ReadTensor> read;
  const std::string read_back =
      written.empty() ? ok_or_message(table.read(checkpoint.handle(), path.c_str(), &collect, &read))
                      : "";
  std::filesystem::remove_all(directory);
  ASSERT_EQ("", written);
  ASSERT_EQ("", read_back);

  ASSERT_EQ(read.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(read.count(names[i]), 1u) << "`" << names[i] << "` missing after read";
    const ReadTensor& got = read[names[i]];
    EXPECT_EQ(got.dtype, "fp32") << names[i];
    EXPECT_EQ(got.shape, std::vector<int64_t>(tensors[i].shape, tensors[i].shape + tensors[i].ndim))
        << names[i];
    const char* expected = static_cast<const char*>(tensors[i].data);
    EXPECT_EQ(got.bytes, std::vector<char>(expected, expected + sdk::byte_size(tensors[i])))
        << names[i];
  }
}

}  // namespace

void register_checkpoint_checks(const Target& target) {
  add_check(target, "checkpoint_round_trip", [target] { check_round_trip(target); });
}

}  // namespace dopant::conformance
