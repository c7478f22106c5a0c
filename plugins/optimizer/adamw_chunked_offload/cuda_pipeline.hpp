// The step on a GPU run (built with CUDA): resident images are updated on the caller's
// stream; streamed images cross PCIe through two device slots, loaded on a host-to-device
// stream and stored on a device-to-host stream of their own, so both directions of the
// link run at once. Issue order per image n in slot s = n % 2: load n+1 (H2D, after the
// store that last emptied its slot), update n (caller's stream, after load n), store n (D2H,
// after update n). While the caller's stream updates n, the D2H stream stores n-1 and the
// H2D stream loads n+1. Stores run in issue order on one stream, so the event of a slot's
// last store also covers every earlier store, of this step and the ones before. The caller's
// stream finally waits for the last store, so work queued after the step, and an event
// recorded on that stream, follow the whole step.
#pragma once

#include <dopant/host.h>

#include <array>
#include <cstddef>

#include "step_work.hpp"

namespace dopant::adamw_offload {

class CudaPipeline {
 public:
  explicit CudaPipeline(const dpt_host* host);
  ~CudaPipeline();
  CudaPipeline(const CudaPipeline&) = delete;
  CudaPipeline& operator=(const CudaPipeline&) = delete;

  // Queues one step of `work`; `slots` hold the largest streamed image each. The calling
  // thread's current device must be the run's.
  void step(const StepWork& work, const std::array<std::byte*, 2>& slots, dpt_stream* stream);

 private:
  void release();

  const dpt_host* host_;
  dpt_stream* load_stream_ = nullptr;    // host to device
  dpt_stream* store_stream_ = nullptr;   // device to host
  std::array<dpt_event*, 2> loaded_{};   // slot s holds its image
  std::array<dpt_event*, 2> updated_{};  // the update of the image in slot s is done
  std::array<dpt_event*, 2> stored_{};   // the last store out of slot s is done
};

}  // namespace dopant::adamw_offload
