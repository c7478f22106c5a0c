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

// Each boundary below kills a mutant of did_you_mean.cpp, named beside it.
TEST(DidYouMean, APrefixCountsFromThreeCharacters) {
  // "wei" is 9 edits from weight_decay: only the prefix rule suggests it (kMinPrefixLength
  // 3 -> 4 loses it); "we" is too short to count (3 -> 2 suggests weight_decay).
  EXPECT_EQ(did_you_mean("wei", kParams), "weight_decay");
  EXPECT_EQ(did_you_mean("we", kParams), std::nullopt);
}

TEST(DidYouMean, AtLeastTwoEditsAreAllowed) {
  // 5 characters allow max(2, 5/3) = 2 edits: a floor of 1 drops "chuxx", a floor of 3
  // would suggest "cxxxk".
  EXPECT_EQ(did_you_mean("chuxx", kParams), "chunk");
  EXPECT_EQ(did_you_mean("cxxxk", kParams), std::nullopt);
  // A third of the length beyond that: 12 characters allow 4 edits, not 5.
  EXPECT_EQ(did_you_mean("wxxxxt_decay", kParams), "weight_decay");
  EXPECT_EQ(did_you_mean("wxxxxx_decay", kParams), std::nullopt);
}

TEST(DidYouMean, ASwapOfNeighboursIsOneEdit) {
  // Levenshtein puts cpu and cuda both 2 edits from "cdua", and cpu, listed first, won.
  EXPECT_EQ(did_you_mean("cdua", {"cpu", "cuda"}), "cuda");
  EXPECT_EQ(did_you_mean("fp61", {"bf16", "fp16"}), "fp16");
}

TEST(DidYouMean, TiesGoToTheFirstCandidate) {
  // `<` -> `<=` in the best-distance comparison would keep the last instead.
  EXPECT_EQ(did_you_mean("ab", {"ax", "ay"}), "ax");
  EXPECT_EQ(did_you_mean("ab", {"ay", "ax"}), "ay");
}

TEST(DidYouMean, WordsUpTo256CharactersAreCompared) {
  // kMaxComparedLength 256 -> 255 loses the first, 256 -> 257 suggests the second.
  EXPECT_EQ(did_you_mean(std::string(256, 'a'), {std::string(255, 'a') + "b"}), std::string(255, 'a') + "b");
  EXPECT_EQ(did_you_mean(std::string(257, 'a'), {std::string(256, 'a') + "b"}), std::nullopt);
}

TEST(DidYouMean, IgnoresHugeWords) {
  EXPECT_EQ(did_you_mean(std::string(100000, 'a'), {std::string(100000, 'a') + "b"}), std::nullopt);
}

}  // namespace
}  // namespace dopant
