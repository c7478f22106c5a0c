// DLTensor helpers: dtype checks and names, counts and sizes, contiguity, data pointers.
#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <string>

namespace sdk = dopant::sdk;

namespace {

DLTensor view(void* data, DLDataType dtype, int ndim, int64_t* shape, int64_t* strides) {
  return DLTensor{data, {kDLCPU, 0}, ndim, dtype, shape, strides, 0};
}

TEST(SdkTensors, DtypeChecksAndNames) {
  int64_t shape[] = {2};
  EXPECT_TRUE(sdk::is_fp32(view(nullptr, sdk::kFloat32, 1, shape, nullptr)));
  EXPECT_TRUE(sdk::is_bf16(view(nullptr, sdk::kBFloat16, 1, shape, nullptr)));
  EXPECT_TRUE(sdk::is_fp16(view(nullptr, sdk::kFloat16, 1, shape, nullptr)));
  EXPECT_FALSE(sdk::is_fp32(view(nullptr, sdk::kInt32, 1, shape, nullptr)));
  EXPECT_FALSE(sdk::is_fp16(view(nullptr, sdk::kBFloat16, 1, shape, nullptr)));
  EXPECT_EQ(sdk::dtype_name(sdk::kFloat32), "fp32");
  EXPECT_EQ(sdk::dtype_name(sdk::kBFloat16), "bf16");
  EXPECT_EQ(sdk::dtype_name(sdk::kInt32), "int32");
  EXPECT_EQ(sdk::dtype_name(DLDataType{kDLFloat, 32, 4}), "code2x32x4");
}

TEST(SdkTensors, CountsSizesAndShapeText) {
  int64_t shape[] = {3, 5, 7};
  const DLTensor t = view(nullptr, sdk::kBFloat16, 3, shape, nullptr);
  EXPECT_EQ(sdk::element_count(t), 105);
  EXPECT_EQ(sdk::byte_size(t), 210u);
  EXPECT_EQ(sdk::shape_string(t), "[3, 5, 7]");
  EXPECT_EQ(sdk::element_count(view(nullptr, sdk::kFloat32, 0, nullptr, nullptr)), 1);
  int64_t other[] = {3, 5, 8};
  EXPECT_FALSE(sdk::same_shape(t, view(nullptr, sdk::kBFloat16, 3, other, nullptr)));
  EXPECT_TRUE(sdk::same_shape(t, view(nullptr, sdk::kFloat32, 3, shape, nullptr)));
}

// The message the SDK throws for `t`, or "" when it accepts it.
std::string size_refusal(const DLTensor& t) {
  try {
    sdk::checked_byte_size(t, "tensor `w`");
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.code(), DPT_INVALID_ARGUMENT);
    return error.what();
  }
  return "";
}

TEST(SdkTensors, SizesThatWouldWrapAreRefusedNamingTheTensor) {
  // 2^62 x 4 wraps to 0 elements in 64 bits; 2^47 bf16 elements are 2^48 bytes, the bound.
  int64_t wraps[] = {int64_t{1} << 62, 4};
  int64_t at_bound[] = {int64_t{1} << 47};
  int64_t past_bound[] = {(int64_t{1} << 47) + 1};
  int64_t negative[] = {3, -1};
  int64_t empty[] = {int64_t{1} << 62, 0, int64_t{1} << 62};
  EXPECT_EQ(size_refusal(view(nullptr, sdk::kFloat32, 2, wraps, nullptr)),
            "tensor `w` of shape [4611686018427387904, 4]: spans more than 2^48 bytes (256 TiB), the most a tensor may");
  EXPECT_EQ(sdk::checked_byte_size(view(nullptr, sdk::kBFloat16, 1, at_bound, nullptr)), sdk::kMaxTensorBytes);
  EXPECT_NE(size_refusal(view(nullptr, sdk::kBFloat16, 1, past_bound, nullptr)), "");
  EXPECT_EQ(size_refusal(view(nullptr, sdk::kFloat32, 2, negative, nullptr)),
            "tensor `w` of shape [3, -1]: has a negative extent");
  EXPECT_EQ(size_refusal(view(nullptr, sdk::kFloat32, 2, nullptr, nullptr)), "tensor `w` of shape [NULL]: has no valid shape");
  EXPECT_EQ(sdk::checked_byte_size(view(nullptr, sdk::kFloat32, 3, empty, nullptr)), 0u);
  EXPECT_THROW(sdk::element_count(view(nullptr, sdk::kFloat32, 2, wraps, nullptr)), sdk::Error);
  EXPECT_THROW(sdk::byte_size(view(nullptr, sdk::kFloat32, 2, wraps, nullptr)), sdk::Error);
}

TEST(SdkTensors, Contiguity) {
  int64_t shape[] = {4, 1, 3};
  int64_t row_major[] = {3, 3, 1};
  int64_t unit_dim_any[] = {3, 99, 1};
  int64_t transposed[] = {1, 3, 4};
  EXPECT_TRUE(sdk::is_contiguous(view(nullptr, sdk::kFloat32, 3, shape, nullptr)));
  EXPECT_TRUE(sdk::is_contiguous(view(nullptr, sdk::kFloat32, 3, shape, row_major)));
  EXPECT_TRUE(sdk::is_contiguous(view(nullptr, sdk::kFloat32, 3, shape, unit_dim_any)));
  EXPECT_FALSE(sdk::is_contiguous(view(nullptr, sdk::kFloat32, 3, shape, transposed)));
  // Strides whose running product would overflow int64 are not contiguous, and not UB.
  int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40};
  int64_t huge_strides[] = {int64_t{1} << 62, int64_t{1} << 40, 1};
  EXPECT_FALSE(sdk::is_contiguous(view(nullptr, sdk::kFloat32, 3, huge, huge_strides)));
}

TEST(SdkTensors, DataAppliesByteOffset) {
  float values[4] = {1, 2, 3, 4};
  int64_t shape[] = {2};
  DLTensor t = view(values, sdk::kFloat32, 1, shape, nullptr);
  t.byte_offset = 2 * sizeof(float);
  EXPECT_EQ(sdk::data_as<float>(t), &values[2]);
}

}  // namespace
