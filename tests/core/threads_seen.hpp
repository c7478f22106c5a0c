// A parallel_for body that proves chunks ran on more than one thread: each chunk records its
// thread and waits (up to 5 s) until a second thread has joined. A pool or host whose
// parallel_for runs every chunk inline, one after another, sees one thread.
#pragma once

#include <dopant/host.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace dopant::testing {

struct ThreadsSeen {
  std::mutex lock;
  std::set<std::thread::id> ids;
};

inline dpt_error* wait_for_a_second_thread(void* context, uint64_t, uint64_t) {
  auto* seen = static_cast<ThreadsSeen*>(context);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  {
    std::lock_guard<std::mutex> guard(seen->lock);
    seen->ids.insert(std::this_thread::get_id());
  }
  while (std::chrono::steady_clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> guard(seen->lock);
      if (seen->ids.size() >= 2) return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return nullptr;
}

}  // namespace dopant::testing
