// did_you_mean: likely typos get a suggestion, unrelated words do not.
#include "params.hpp"

#include <gtest/gtest.h>

namespace dopant {
namespace {

const std::vector<std::string> kParams = {"lr", "chunk", "slots", "state_dtype", "weight_decay"};

TEST(DidYouMean, SuggestsCloseSpelling) {
  EXPECT_EQ(did_you_mean("chunkk", kParams), "chunk");
  EXPECT_EQ(did_you_mean("slot", kParams), "slots");
  EXPECT_EQ(did_you_mean("weight-decay", kParams), "weight_decay");
  EXPECT_EQ(did_you_mean("statedtype", kParams), "state_dtype");
}

TEST(DidYouMean, SuggestsPrefixMatches) {
  EXPECT_EQ(did_you_mean("chunk_mib", kParams), "chunk");
  EXPECT_EQ(did_you_mean("weight", kParams), "weight_decay");
}

TEST(DidYouMean, CaseOnlyDifferenceWins) {
  EXPECT_EQ(did_you_mean("Mib", {"MB", "MiB", "GiB"}), "MiB");
  EXPECT_EQ(did_you_mean("LR", kParams), "lr");
}

TEST(DidYouMean, PicksTheClosestCandidate) {
  EXPECT_EQ(did_you_mean("bf61", {"fp16", "bf16", "fp32"}), "bf16");
  EXPECT_EQ(did_you_mean("fp23", {"bf16", "fp32"}), "fp32");
}

TEST(DidYouMean, StaysQuietForUnrelatedWords) {
  EXPECT_EQ(did_you_mean("banana", kParams), std::nullopt);
  EXPECT_EQ(did_you_mean("xy", kParams), std::nullopt);
  EXPECT_EQ(did_you_mean("", kParams), std::nullopt);
  EXPECT_EQ(did_you_mean("lr", {}), std::nullopt);
}

TEST(DidYouMean, IgnoresHugeWords) {
  EXPECT_EQ(did_you_mean(std::string(100000, 'a'), {std::string(100000, 'a') + "b"}), std::nullopt);
}

}  // namespace
}  // namespace dopant
