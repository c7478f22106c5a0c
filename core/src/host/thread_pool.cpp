// ThreadPool: chunked parallel_for over fixed workers (see thread_pool.hpp).
#include "thread_pool.hpp"

#include <algorithm>

namespace dopant {

namespace {
thread_local bool inside_pool_task = false;
}

struct ThreadPool::Job {
  uint64_t begin;
  uint64_t end;
  uint64_t chunk;
  dpt_parallel_body body;
  void* context;
  void (*free_error)(dpt_error*);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_lock;
  dpt_error* error = nullptr;
};

ThreadPool::ThreadPool(uint32_t threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (uint32_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run_chunks(Job& job) {
  const bool was_inside = inside_pool_task;
  inside_pool_task = true;
  for (;;) {
    const uint64_t start = job.begin + job.next.fetch_add(job.chunk);
    if (start >= job.end || job.failed.load(std::memory_order_relaxed)) break;
    const uint64_t stop = std::min(job.end, start + job.chunk);
    if (dpt_error* error = job.body(job.context, start, stop)) {
      std::lock_guard<std::mutex> guard(job.error_lock);
      if (job.error == nullptr) {
        job.error = error;
        job.failed = true;
      } else {
        job.free_error(error);
      }
    }
  }
  inside_pool_task = was_inside;
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> guard(lock_);
      wake_.wait(guard, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
      if (job == nullptr) continue;  // woke after that job was already finished
      ++active_;
    }
    run_chunks(*job);
    {
      std::lock_guard<std::mutex> guard(lock_);
      --active_;
    }
    done_.notify_all();
  }
}

dpt_error* ThreadPool::parallel_for(uint64_t begin, uint64_t end, uint64_t grain,
                                    dpt_parallel_body body, void* context,
                                    void (*free_error)(dpt_error*)) {
  if (end <= begin) return nullptr;
  const uint64_t count = end - begin;
  grain = std::max<uint64_t>(grain, 1);

  std::unique_lock<std::mutex> owner(caller_lock_, std::defer_lock);
  const bool inline_only = workers_.empty() || inside_pool_task || count <= grain || !owner.try_lock();
  if (inline_only) {
    const bool was_inside = inside_pool_task;
    inside_pool_task = true;
    dpt_error* error = body(context, begin, end);
    inside_pool_task = was_inside;
    return error;
  }

  Job job;
  job.begin = begin;
  job.end = end;
  const uint64_t target_chunks = uint64_t{size()} * 4;
  job.chunk = std::max(grain, (count + target_chunks - 1) / target_chunks);
  job.body = body;
  job.context = context;
  job.free_error = free_error;
  {
    std::lock_guard<std::mutex> guard(lock_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  run_chunks(job);
  {
    // Workers that woke for this generation must leave before `job` goes out of scope.
    std::unique_lock<std::mutex> guard(lock_);
    job_ = nullptr;
    done_.wait(guard, [&] { return active_ == 0; });
  }
  return job.error;
}

}  // namespace dopant
