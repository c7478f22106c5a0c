// CudaPipeline: copy streams, events and multi-tensor launches (see cuda_pipeline.hpp).
#include "cuda_pipeline.hpp"

#include <dopant/sdk/errors.hpp>

#include <vector>

#include "dopant/adamw_kernels/cuda_step.hpp"

namespace dopant::adamw_offload {
namespace {

// Launches the updates of `image`, whose state is at `base`, on `native` (launch_batched:
// one launch per run of consecutive segments with the same dtype and step scalars).
void launch_image(const ImageWork& image, std::byte* base,
                  const std::vector<adamw_kernels::StepScalars>& scalars, void* native) {
  std::vector<adamw_kernels::cuda::BatchedTensor> updates;
  updates.reserve(image.segments.size());
  for (const SegmentUpdate& s : image.segments) {
    updates.push_back({s.dtype, scalars[s.scalars], {s.refs(base), s.count}});
  }
  adamw_kernels::cuda::launch_batched(updates.data(), updates.size(), native);
}

}  // namespace

CudaPipeline::CudaPipeline(const dpt_host* host) : host_(host) {
  try {
    sdk::check(host_, host_->stream_create(host_, &load_stream_));
    sdk::check(host_, host_->stream_create(host_, &store_stream_));
    for (size_t s = 0; s < 2; ++s) {
      sdk::check(host_, host_->event_create(host_, &loaded_[s]));
      sdk::check(host_, host_->event_create(host_, &updated_[s]));
      sdk::check(host_, host_->event_create(host_, &stored_[s]));
    }
  } catch (...) {
    release();
    throw;
  }
}

CudaPipeline::~CudaPipeline() {
  for (dpt_stream* stream : {load_stream_, store_stream_}) {
    host_->error_free(host_, host_->stream_synchronize(host_, stream));
  }
  release();
}

void CudaPipeline::release() {
  for (const auto* events : {&loaded_, &updated_, &stored_}) {
    for (dpt_event* event : *events) {
      if (event != nullptr) host_->event_destroy(host_, event);
    }
  }
  host_->stream_destroy(host_, load_stream_);
  host_->stream_destroy(host_, store_stream_);
}

// An event not yet recorded counts as complete, so the first step's loads wait for nothing.
void CudaPipeline::step(const StepWork& work, const std::array<std::byte*, 2>& slots,
                        dpt_stream* stream) {
  void* native = host_->stream_native(host_, stream);
  for (const ImageWork& image : work.resident) launch_image(image, image.home, work.scalars, native);
  const auto load = [&](size_t n) {
    const size_t slot = n % 2;
    const ImageWork& image = work.streamed[n];
    sdk::check(host_, host_->stream_wait_event(host_, load_stream_, stored_[slot]));
    sdk::check(host_, host_->copy(host_, slots[slot], DPT_MEMORY_DEVICE, image.home,
                                  DPT_MEMORY_PINNED_HOST, image.bytes, load_stream_));
    sdk::check(host_, host_->event_record(host_, loaded_[slot], load_stream_));
  };
  const size_t count = work.streamed.size();
  if (count == 0) return;
  load(0);
  for (size_t n = 0; n < count; ++n) {
    const size_t slot = n % 2;
    if (n + 1 < count) load(n + 1);
    sdk::check(host_, host_->stream_wait_event(host_, stream, loaded_[slot]));
    launch_image(work.streamed[n], slots[slot], work.scalars, native);
    sdk::check(host_, host_->event_record(host_, updated_[slot], stream));
    sdk::check(host_, host_->stream_wait_event(host_, store_stream_, updated_[slot]));
    const ImageWork& image = work.streamed[n];
    sdk::check(host_, host_->copy(host_, image.home, DPT_MEMORY_PINNED_HOST, slots[slot],
                                  DPT_MEMORY_DEVICE, image.bytes, store_stream_));
    sdk::check(host_, host_->event_record(host_, stored_[slot], store_stream_));
  }
  sdk::check(host_, host_->stream_wait_event(host_, stream, stored_[(count - 1) % 2]));
}

}  // namespace dopant::adamw_offload
