// The planner of state images and the offload choice, on their own: tensors that fit a
// chunk stay whole, larger ones are cut into chunk-sized slices covering them in order,
// images never exceed a chunk, arrays are aligned and disjoint; the offload choice takes
// the largest tensors first until the fraction is reached.
#include <gtest/gtest.h>

#include <vector>

#include "offload_choice.hpp"
#include "state_layout.hpp"

namespace dopant::adamw_offload {
namespace {

constexpr uint64_t kChunk = uint64_t{1} << 20;

TEST(PlanImages, WholeTensorsSlicesAndBounds) {
  // 3 arrays: 12 bytes per element, so 87381 elements fill a 1 MiB chunk.
  const std::vector<TensorState> tensors = {
      {0, 1000, 3}, {1, 300000, 3}, {2, 5, 2}, {3, 80000, 3}, {4, 0, 3}, {5, 20000, 2}};
  const std::vector<ImageLayout> images = plan_images(tensors, kChunk);
  std::vector<uint64_t> covered(tensors.size(), 0);
  std::vector<int> pieces(tensors.size(), 0);
  for (const ImageLayout& image : images) {
    EXPECT_LE(image.bytes, kChunk);
    uint64_t end = 0;
    for (const Segment& s : image.segments) {
      EXPECT_EQ(s.offset, end) << "segments are packed in order";
      EXPECT_EQ(s.array_offset(1) % kArrayAlignment, 0u);
      EXPECT_EQ(s.begin, covered[s.tensor]) << "slices follow each other";
      covered[s.tensor] += s.count;
      ++pieces[s.tensor];
      end = s.offset + s.bytes();
    }
    EXPECT_EQ(image.bytes, end);
  }
  for (const TensorState& t : tensors) EXPECT_EQ(covered[t.tensor], t.count);
  EXPECT_EQ(pieces[0], 1);
  EXPECT_EQ(pieces[1], 4);  // 300000 elements: 3 slices of 87376 and the rest
  EXPECT_EQ(pieces[3], 1);  // fits a chunk, so it is not split
  EXPECT_EQ(largest_image_bytes(images), 87376u * 12u);
}

TEST(PlanImages, UnlimitedChunkGivesOneImage) {
  const std::vector<ImageLayout> images =
      plan_images({{0, 7, 3}, {1, 1u << 24, 2}}, UINT64_MAX);
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0].bytes, 3 * array_bytes(7) + 2 * array_bytes(1u << 24));
}

TEST(ChooseOffloaded, LargestFirstUntilTheFraction) {
  const std::vector<uint64_t> bytes = {10, 100, 10, 50};
  EXPECT_EQ(choose_offloaded(bytes, 0.0), std::vector<bool>({false, false, false, false}));
  EXPECT_EQ(choose_offloaded(bytes, 0.5), std::vector<bool>({false, true, false, false}));
  EXPECT_EQ(choose_offloaded(bytes, 0.6), std::vector<bool>({false, true, false, true}));
  EXPECT_EQ(choose_offloaded(bytes, 1.0), std::vector<bool>({true, true, true, true}));
}

}  // namespace
}  // namespace dopant::adamw_offload
