// The step on a CPU run, where "device" memory is the host's accounted device pool. Streamed
// images go through two device slots in stages; stage k updates image k-1 in its slot while
// the other slot stores image k-2 back to its pinned home and then loads image k. All work
// of a stage is one host->parallel_for whose items interleave update ranges with slot
// pieces, so the pool's threads copy and compute at the same time and no thread is added.
#pragma once

#include <dopant/host.h>

#include <array>
#include <cstddef>

#include "step_work.hpp"

namespace dopant::adamw_offload {

// Runs one step of `work`: resident images in stage 0 (alongside loading the first
// streamed image), then the streamed ones through `slots`, each at least as large as the
// largest streamed image. Returns when every update and store is done.
void step_on_cpu(const dpt_host* host, adamw_kernels::Variant variant, const StepWork& work,
                 const std::array<std::byte*, 2>& slots);

}  // namespace dopant::adamw_offload
