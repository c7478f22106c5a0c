// A fixed pool of worker threads behind host->parallel_for. The calling thread takes part;
// a call made from inside a pool task, or while another caller holds the pool, runs inline
// so that cores are never oversubscribed and nested loops cannot deadlock.
#pragma once

#include <dopant/host.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace dopant {

class ThreadPool {
 public:
  // `threads` counts the caller: 1 means no workers. 0 means one per hardware thread.
  explicit ThreadPool(uint32_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  uint32_t size() const { return static_cast<uint32_t>(workers_.size()) + 1; }

  // Runs body over [begin, end) in chunks of at least `grain`; returns the first error
  // (later errors are freed through `free_error`).
  dpt_error* parallel_for(uint64_t begin, uint64_t end, uint64_t grain, dpt_parallel_body body,
                          void* context, void (*free_error)(dpt_error*));

 private:
  struct Job;
  void worker_loop();
  static void run_chunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex caller_lock_;  // one parallel_for owns the workers at a time
  std::mutex lock_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  uint32_t active_ = 0;
  bool stopping_ = false;
};

}  // namespace dopant
