// plan_images: greedy packing of tensors, and slices of tensors larger than a chunk, into
// chunk-sized state images (see state_layout.hpp).
#include "state_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dopant::adamw_offload {
namespace {

constexpr uint64_t kSliceGranule = kArrayAlignment / sizeof(float);  // 16 elements

// Appends elements [begin, begin + count) of `tensor` to the last image, or to a new one
// when they do not fit in what is left of it.
void place(std::vector<ImageLayout>& images, const TensorState& tensor, uint64_t begin,
           uint64_t count, uint64_t chunk_bytes) {
  const uint64_t bytes = tensor.arrays * array_bytes(count);
  if (images.empty() || images.back().bytes + bytes > chunk_bytes) images.emplace_back();
  ImageLayout& image = images.back();
  image.segments.push_back(Segment{tensor.tensor, tensor.arrays, begin, count, image.bytes});
  image.bytes += bytes;
}

}  // namespace

std::vector<ImageLayout> plan_images(const std::vector<TensorState>& tensors,
                                     uint64_t chunk_bytes) {
  std::vector<ImageLayout> images;
  for (const TensorState& tensor : tensors) {
    if (tensor.arrays * array_bytes(tensor.count) <= chunk_bytes) {
      place(images, tensor, 0, tensor.count, chunk_bytes);
      continue;
    }
    const uint64_t per_element = tensor.arrays * sizeof(float);
    const uint64_t slice = chunk_bytes / per_element / kSliceGranule * kSliceGranule;
    if (slice == 0) {
      throw std::invalid_argument("chunk of " + std::to_string(chunk_bytes) +
                                  " bytes cannot hold a slice of " +
                                  std::to_string(kSliceGranule) + " elements");
    }
    for (uint64_t begin = 0; begin < tensor.count; begin += slice) {
      place(images, tensor, begin, std::min(slice, tensor.count - begin), chunk_bytes);
    }
  }
  return images;
}

uint64_t largest_image_bytes(const std::vector<ImageLayout>& images) {
  uint64_t largest = 0;
  for (const ImageLayout& image : images) largest = std::max(largest, image.bytes);
  return largest;
}

}  // namespace dopant::adamw_offload
