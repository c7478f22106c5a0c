// The step on a GPU run (built with CUDA): resident images are updated on the caller's
// stream; streamed images cross PCIe through two device slots on a copy stream of their
// own. Issue order per image n: load n+1 (copy stream), update n (caller's stream, after
// the load-n event), store n (copy stream, after the update-n event). The copy stream runs
// store n-1 and load n+1 while the caller's stream updates n; one copy stream keeps the
// store of an image ahead of the load that reuses its slot. The caller's stream finally
// waits for the last store, so synchronizing it covers the whole step.
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

  // Queues one step of `work`; `slots` hold the largest streamed image each.
  void step(const StepWork& work, const std::array<std::byte*, 2>& slots, dpt_stream* stream);

  // Waits until every queued copy is done, so pinned homes may be read or written.
  void wait_idle() const;

 private:
  void release();

  const dpt_host* host_;
  dpt_stream* copy_stream_ = nullptr;
  std::array<dpt_event*, 2> loaded_{};   // slot s holds its image
  std::array<dpt_event*, 2> updated_{};  // the update of the image in slot s is done
  dpt_event* stored_ = nullptr;          // the last store of a step is done
};

}  // namespace dopant::adamw_offload
