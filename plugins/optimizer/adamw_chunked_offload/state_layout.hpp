// Where AdamW state lives: the layout of a state *image*, a block of bytes holding the state
// of whole tensors or of element slices of them, and the planner that packs tensors into
// chunk-sized images. An image has the same layout wherever it is (pinned host home, device
// slot, device-resident block), so moving a chunk is one copy of `bytes` bytes.
//
// Per segment the image holds its state arrays one after another, each [count] fp32 and
// padded to kArrayAlignment bytes: exp_avg, exp_avg_sq, then master (bf16/fp16 tensors).
#pragma once

#include <cstdint>
#include <vector>

namespace dopant::adamw_offload {

inline constexpr uint64_t kArrayAlignment = 64;

// Bytes of one state array of `count` fp32 elements, padding included.
constexpr uint64_t array_bytes(uint64_t count) {
  return (count * sizeof(float) + kArrayAlignment - 1) / kArrayAlignment * kArrayAlignment;
}

// What the planner needs of one tensor: its element count and how many state arrays it has
// (2 for fp32 parameters, 3 with fp32 master weights for bf16/fp16).
struct TensorState {
  uint32_t tensor;  // the caller's index of the tensor
  uint64_t count;
  uint32_t arrays;
};

// Elements [begin, begin + count) of one tensor's state, at `offset` in its image.
struct Segment {
  uint32_t tensor;
  uint32_t arrays;
  uint64_t begin;
  uint64_t count;
  uint64_t offset;

  // Offset of array `index` (0 exp_avg, 1 exp_avg_sq, 2 master) in the image.
  uint64_t array_offset(uint32_t index) const { return offset + index * array_bytes(count); }
  uint64_t bytes() const { return arrays * array_bytes(count); }
};

struct ImageLayout {
  uint64_t bytes = 0;
  std::vector<Segment> segments;
};

// Packs tensors, in order, into images of at most `chunk_bytes`: a tensor whose state fits
// in a chunk is never split, and goes to the current image when it fits there, else starts
// a new one; a larger tensor is cut element-wise into slices of the largest multiple of 16
// elements that fits one chunk (the last slice may be shorter), each placed the same way.
// Throws std::invalid_argument when a chunk cannot hold 16 elements of every array.
std::vector<ImageLayout> plan_images(const std::vector<TensorState>& tensors,
                                     uint64_t chunk_bytes);

// Bytes of the largest image.
uint64_t largest_image_bytes(const std::vector<ImageLayout>& images);

}  // namespace dopant::adamw_offload
