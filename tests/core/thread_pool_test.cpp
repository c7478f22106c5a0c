// The thread pool behind parallel_for: every index visited exactly once, chunks really
// spread over threads, errors returned, nested loops run inline.
#include "error.hpp"
#include "host/thread_pool.hpp"
#include "threads_seen.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace dopant {
namespace {

void free_error(dpt_error* error) { delete error; }

struct Visits {
  std::vector<std::atomic<int>> counts;
  explicit Visits(size_t n) : counts(n) {}
};

dpt_error* count_visits(void* context, uint64_t begin, uint64_t end) {
  auto* visits = static_cast<Visits*>(context);
  for (uint64_t i = begin; i < end; ++i) visits->counts[i]++;
  return nullptr;
}

TEST(ThreadPool, VisitsEveryIndexOnce) {
  for (uint32_t threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (uint64_t n : {1ull, 7ull, 1000ull, 100003ull}) {
      Visits visits(n);
      ASSERT_EQ(pool.parallel_for(0, n, 16, count_visits, &visits, free_error), nullptr);
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(visits.counts[i].load(), 1) << "index " << i << " of " << n;
    }
  }
}

dpt_error* fail_above_500(void*, uint64_t begin, uint64_t end) {
  return end > 500 && begin <= 500 ? make_error(DPT_INTERNAL, "chunk with 500 failed") : nullptr;
}

// A pool whose workers never take a chunk (the mutant: worker_loop returning at once,
// tried) fails here instead of quietly running everything on the caller's thread.
TEST(ThreadPool, ChunksRunOnMoreThanOneThread) {
  ThreadPool pool(4);
  testing::ThreadsSeen seen;
  ASSERT_EQ(pool.parallel_for(0, 8, 1, testing::wait_for_a_second_thread, &seen, free_error), nullptr);
  EXPECT_GE(seen.ids.size(), 2u);
}

TEST(ThreadPool, ReturnsTheError) {
  ThreadPool pool(3);
  dpt_error* error = pool.parallel_for(0, 1000, 10, fail_above_500, nullptr, free_error);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, DPT_INTERNAL);
  EXPECT_EQ(error->message, "chunk with 500 failed");
  delete error;
}

struct Nested {
  ThreadPool* pool;
  std::atomic<uint64_t> inner_total{0};
};

dpt_error* inner_body(void* context, uint64_t begin, uint64_t end) {
  static_cast<Nested*>(context)->inner_total += end - begin;
  return nullptr;
}

dpt_error* outer_body(void* context, uint64_t begin, uint64_t end) {
  auto* nested = static_cast<Nested*>(context);
  for (uint64_t i = begin; i < end; ++i) {
    if (dpt_error* error = nested->pool->parallel_for(0, 100, 1, inner_body, nested, free_error)) return error;
  }
  return nullptr;
}

TEST(ThreadPool, NestedLoopsRunInline) {
  ThreadPool pool(2);
  Nested nested{&pool};
  ASSERT_EQ(pool.parallel_for(0, 50, 1, outer_body, &nested, free_error), nullptr);
  EXPECT_EQ(nested.inner_total.load(), 50u * 100u);
}

}  // namespace
}  // namespace dopant
