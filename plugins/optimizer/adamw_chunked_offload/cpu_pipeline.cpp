// step_on_cpu: the staged slot pipeline on host->parallel_for (see cpu_pipeline.hpp).
#include "cpu_pipeline.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <vector>

namespace dopant::adamw_offload {
namespace {

constexpr uint64_t kElementsPerUpdate = uint64_t{1} << 16;
constexpr uint64_t kBytesPerCopy = uint64_t{1} << 20;

// Elements [begin, end) of one segment, with its image at `base`.
struct UpdateRange {
  const SegmentUpdate* segment;
  std::byte* base;
  uint64_t begin;
  uint64_t end;
};

// The work of one stage: update ranges, and the slot's store-then-load in pieces.
struct Stage {
  const dpt_host* host;
  adamw_kernels::Variant variant;
  const std::vector<adamw_kernels::StepScalars>* scalars;
  std::vector<UpdateRange> updates;
  std::byte* slot = nullptr;
  const ImageWork* store = nullptr;  // image leaving the slot, copied to its home first
  const ImageWork* load = nullptr;   // image entering the slot, copied from its home then
  uint64_t pieces = 0;

  uint64_t items() const { return updates.size() + pieces; }

  // Item i: updates and pieces alternate while both last, then the rest of the longer list.
  void run(uint64_t item) const {
    const uint64_t both = std::min<uint64_t>(updates.size(), pieces);
    if (item < 2 * both) {
      if (item % 2 == 0) {
        update(updates[item / 2]);
      } else {
        copy_piece(item / 2);
      }
    } else if (updates.size() > pieces) {
      update(updates[item - both]);
    } else {
      copy_piece(item - both);
    }
  }

  void update(const UpdateRange& range) const {
    const SegmentUpdate& s = *range.segment;
    adamw_kernels::step_range(variant, s.dtype, (*scalars)[s.scalars], s.refs(range.base),
                              range.begin, range.end);
  }

  // Bytes [piece * kBytesPerCopy, +kBytesPerCopy) of the slot: out to the stored image's
  // home, then in from the loaded image's home. Pieces are disjoint, so they run in any order.
  void copy_piece(uint64_t piece) const {
    const uint64_t begin = piece * kBytesPerCopy;
    if (store != nullptr && begin < store->bytes) {
      const uint64_t bytes = std::min(kBytesPerCopy, store->bytes - begin);
      sdk::check(host, host->copy(host, store->home + begin, DPT_MEMORY_PINNED_HOST,
                                  slot + begin, DPT_MEMORY_DEVICE, bytes, nullptr));
    }
    if (load != nullptr && begin < load->bytes) {
      const uint64_t bytes = std::min(kBytesPerCopy, load->bytes - begin);
      sdk::check(host, host->copy(host, slot + begin, DPT_MEMORY_DEVICE, load->home + begin,
                                  DPT_MEMORY_PINNED_HOST, bytes, nullptr));
    }
  }
};

dpt_error* run_items(void* context, uint64_t begin, uint64_t end) {
  const Stage& stage = *static_cast<const Stage*>(context);
  return sdk::guard(stage.host, [&] {
    for (uint64_t item = begin; item < end; ++item) stage.run(item);
  });
}

void add_updates(Stage& stage, const ImageWork& image, std::byte* base) {
  for (const SegmentUpdate& segment : image.segments) {
    for (uint64_t begin = 0; begin < segment.count; begin += kElementsPerUpdate) {
      stage.updates.push_back(
          {&segment, base, begin, std::min(segment.count, begin + kElementsPerUpdate)});
    }
  }
}

}  // namespace

void step_on_cpu(const dpt_host* host, adamw_kernels::Variant variant, const StepWork& work,
                 const std::array<std::byte*, 2>& slots) {
  const size_t streamed = work.streamed.size();
  const size_t stages = streamed == 0 ? 1 : streamed + 2;
  for (size_t k = 0; k < stages; ++k) {
    Stage stage{host, variant, &work.scalars, {}};
    if (k == 0) {
      for (const ImageWork& image : work.resident) add_updates(stage, image, image.home);
    } else if (k - 1 < streamed) {
      add_updates(stage, work.streamed[k - 1], slots[(k - 1) % 2]);
    }
    stage.slot = slots[k % 2];
    if (k >= 2 && k - 2 < streamed) stage.store = &work.streamed[k - 2];
    if (k < streamed) stage.load = &work.streamed[k];
    const uint64_t slot_bytes = std::max(stage.store != nullptr ? stage.store->bytes : 0,
                                         stage.load != nullptr ? stage.load->bytes : 0);
    stage.pieces = (slot_bytes + kBytesPerCopy - 1) / kBytesPerCopy;
    sdk::check(host, host->parallel_for(host, 0, stage.items(), 1, &run_items, &stage));
  }
}

}  // namespace dopant::adamw_offload
