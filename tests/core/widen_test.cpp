// The adapter for older minors: a struct written with a smaller struct_size is widened to
// the current size with the missing tail zeroed, and a larger (newer) one is truncated.
#include "widen.hpp"

#include <dopant/optimizer.h>

#include <gtest/gtest.h>

namespace dopant {
namespace {

dpt_error* fake_step(dpt_instance*, const dpt_step_args*, dpt_stream*) { return nullptr; }
dpt_error* fake_memory(dpt_instance*, dpt_optimizer_memory*) { return nullptr; }

TEST(Widen, OlderTableReadsMissingSlotsAsNull) {
  dpt_optimizer_v1 table{};
  table.struct_size = DPT_OPTIMIZER_V1_SIZE_1_0;
  table.step = fake_step;
  table.memory = fake_memory;  // beyond struct_size: must not be read
  const auto widened = widen_struct(&table, sizeof(dpt_optimizer_v1));
  const dpt_optimizer_v1* current = as<dpt_optimizer_v1>(widened);
  EXPECT_EQ(current->struct_size, sizeof(dpt_optimizer_v1));
  EXPECT_EQ(current->step, fake_step);
  EXPECT_EQ(current->memory, nullptr);
}

TEST(Widen, NewerTableIsReadUpToKnownSize) {
  struct Newer {
    dpt_optimizer_v1 known;
    void* added_later;
  } newer{};
  newer.known.struct_size = sizeof newer;
  newer.known.memory = fake_memory;
  newer.added_later = &newer;
  const auto widened = widen_struct(&newer, sizeof(dpt_optimizer_v1));
  const dpt_optimizer_v1* current = as<dpt_optimizer_v1>(widened);
  EXPECT_EQ(current->struct_size, sizeof(dpt_optimizer_v1));
  EXPECT_EQ(current->memory, fake_memory);
}

}  // namespace
}  // namespace dopant
