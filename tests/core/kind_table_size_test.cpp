// Which kind table sizes the loader accepts (table_size_problem): a draft kind only at its
// exact size, since drafts change freely and a table of another draft would be misread; a
// released kind at its first release's size or more (older tables are widened, newer ones
// read up to what the core knows). No kind is a draft today, so the draft case uses a
// KindInfo of a draft table defined here.
// Mutant killed: removing the draft branch of table_size_problem fails
// DraftKindLoadsOnlyAtItsExactSize (a larger draft table is then accepted).
#include "kinds.hpp"

#include <gtest/gtest.h>

namespace dopant {
namespace {

// A draft kind's table as its header would declare it: the common prefix and one slot.
struct ExampleDraft {
  uint32_t struct_size;
  CreateFn create;
  DestroyFn destroy;
  void (*work)(void);
};

constexpr KindInfo kExampleDraft{"dopant.example.draft/0", "example", sizeof(ExampleDraft), sizeof(ExampleDraft),
                                 true, nullptr, 0};

TEST(KindTableSize, DraftKindLoadsOnlyAtItsExactSize) {
  EXPECT_EQ(table_size_problem(kExampleDraft, sizeof(ExampleDraft)), "");
  const std::string larger = table_size_problem(kExampleDraft, sizeof(ExampleDraft) + 8);
  EXPECT_NE(larger.find("differs from this core's draft of `dopant.example.draft/0`"), std::string::npos) << larger;
  EXPECT_NE(larger.find("a draft kind loads only at its exact size"), std::string::npos) << larger;
  EXPECT_NE(table_size_problem(kExampleDraft, sizeof(ExampleDraft) - 8), "");
}

TEST(KindTableSize, ReleasedKindLoadsFromItsFirstSizeUp) {
  const KindInfo* checkpoint = find_kind(DPT_KIND_CHECKPOINT);
  ASSERT_NE(checkpoint, nullptr);
  EXPECT_FALSE(checkpoint->draft);
  EXPECT_EQ(table_size_problem(*checkpoint, DPT_CHECKPOINT_V1_SIZE_1_6), "");
  EXPECT_EQ(table_size_problem(*checkpoint, DPT_CHECKPOINT_V1_SIZE_1_6 + 8), "");  // a later minor's
  const std::string smaller = table_size_problem(*checkpoint, DPT_CHECKPOINT_V1_SIZE_1_6 - 8);
  EXPECT_NE(smaller.find("smaller than the smallest released size 88"), std::string::npos) << smaller;
  EXPECT_EQ(find_kind("dopant.checkpoint.draft/0"), nullptr);
}

}  // namespace
}  // namespace dopant
