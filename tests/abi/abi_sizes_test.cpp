// The header-check TUs compiled (C11, C++17, C++20 under -Werror); here their struct sizes
// must agree with each other and with the pinned size macros seen by this TU.
#include <gtest/gtest.h>

#include "abi_sizes.h"

namespace {

#define ABI_SIZES_NAME(TYPE, PINNED) #PINNED,
const char* const kNames[ABI_SIZED_COUNT] = {ABI_SIZED_STRUCTS(ABI_SIZES_NAME)};
const abi_sizes kHere = ABI_SIZES_MEASURED;

void expect_same(const abi_sizes& mode, const char* mode_name) {
  for (int i = 0; i < ABI_SIZED_COUNT; ++i) {
    EXPECT_EQ(mode.pinned[i], kHere.pinned[i]) << kNames[i] << " in " << mode_name;
    EXPECT_EQ(mode.whole[i], kHere.whole[i]) << "sizeof for " << kNames[i] << " in " << mode_name;
  }
}

TEST(AbiSizes, PinnedSizesFitTheirStructs) {
  for (int i = 0; i < ABI_SIZED_COUNT; ++i) {
    EXPECT_GT(kHere.pinned[i], 0u) << kNames[i];
    EXPECT_LE(kHere.pinned[i], kHere.whole[i]) << kNames[i];
  }
}

TEST(AbiSizes, C11SeesTheSameLayout) { expect_same(abi_sizes_c11(), "C11"); }
TEST(AbiSizes, Cxx17SeesTheSameLayout) { expect_same(abi_sizes_cxx17(), "C++17"); }
TEST(AbiSizes, Cxx20SeesTheSameLayout) { expect_same(abi_sizes_cxx20(), "C++20"); }

}  // namespace
