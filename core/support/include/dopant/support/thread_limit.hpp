// The most threads one runtime's pool may have: a sane multiple of the cores, so a typo such
// as `--threads 100000` is refused instead of exhausting the machine's thread limit. Shared
// by dpt_runtime_create, which enforces it, and the CLI, which names it in its message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>

namespace dopant {

// 8 threads per core, and never fewer than 64 (so small machines can still oversubscribe).
inline uint32_t max_pool_threads() {
  const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(64u, 8u * cores);
}

}  // namespace dopant
