// The dpt_host table as a plugin sees it: errors, typed config reads, metrics, memory
// stats for an older (smaller) stats struct, cancellation, parallel_for across threads.
#include "error.hpp"
#include "host/host_services.hpp"
#include "params.hpp"
#include "threads_seen.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace dopant {
namespace {

class HostTable : public ::testing::Test {
 protected:
  HostServices services{2, DPT_LOG_ERROR};
  HostContext context{&services, "test-plugin"};
  dpt_host host = make_host_table(&context);
};

TEST_F(HostTable, ErrorsCarryCodeAndMessage) {
  dpt_error* error = host.error(&host, DPT_DATA_LOSS, "torn write");
  EXPECT_EQ(host.error_code(&host, error), DPT_DATA_LOSS);
  EXPECT_STREQ(host.error_message(&host, error), "torn write");
  host.error_free(&host, error);
}

TEST_F(HostTable, ConfigReadsAreTyped) {
  dpt_config config;
  config.owner = "adamw";
  ParamValue lr;
  lr.type = ParamType::Float;
  lr.real = 1e-4;
  config.values["lr"] = lr;
  ParamValue chunk;
  chunk.type = ParamType::Size;
  chunk.size = 268435456;
  config.values["chunk"] = chunk;
  ParamValue dtype;
  dtype.type = ParamType::Enum;
  dtype.text = "bf16";
  config.values["dtype"] = dtype;

  double real = 0;
  ASSERT_EQ(host.config_float(&host, &config, "lr", &real), nullptr);
  EXPECT_EQ(real, 1e-4);
  uint64_t size = 0;
  ASSERT_EQ(host.config_size(&host, &config, "chunk", &size), nullptr);
  EXPECT_EQ(size, 268435456u);
  const char* text = nullptr;
  ASSERT_EQ(host.config_string(&host, &config, "dtype", &text), nullptr);
  EXPECT_STREQ(text, "bf16");

  int64_t integer = 0;
  dpt_error* wrong_type = host.config_int(&host, &config, "lr", &integer);
  ASSERT_NE(wrong_type, nullptr);
  EXPECT_EQ(wrong_type->code, DPT_INVALID_ARGUMENT);
  EXPECT_NE(wrong_type->message.find("`lr`"), std::string::npos) << wrong_type->message;
  host.error_free(&host, wrong_type);

  dpt_error* undeclared = host.config_float(&host, &config, "beta3", &real);
  ASSERT_NE(undeclared, nullptr);
  EXPECT_NE(undeclared->message.find("`adamw` has no parameter `beta3`"), std::string::npos) << undeclared->message;
  host.error_free(&host, undeclared);
}

TEST_F(HostTable, MetricsAreRecordedInOrder) {
  host.metric(&host, "step_time", 0.25, "s", DPT_BETTER_LOWER);
  host.metric(&host, "tokens_per_second", 1e6, "1/s", DPT_BETTER_HIGHER);
  const auto metrics = services.metrics();
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].name, "step_time");
  EXPECT_EQ(metrics[1].better, DPT_BETTER_HIGHER);
  EXPECT_EQ(metrics[1].value, 1e6);
}

TEST_F(HostTable, MemoryStatsRespectTheCallersStructSize) {
  void* p = nullptr;
  ASSERT_EQ(host.alloc(&host, DPT_MEMORY_DEVICE, 4096, 0, &p), nullptr);
  // A caller built against a struct that ended after current_bytes.
  struct {
    dpt_memory_stats stats;
    uint64_t guard;
  } older;
  std::memset(&older, 0xAB, sizeof older);
  older.stats.struct_size = DPT_STRUCT_SIZE(dpt_memory_stats, current_bytes);
  ASSERT_EQ(host.memory_stats(&host, DPT_MEMORY_DEVICE, &older.stats), nullptr);
  EXPECT_EQ(older.stats.current_bytes, 4096u);
  uint64_t untouched;
  std::memset(&untouched, 0xAB, sizeof untouched);
  EXPECT_EQ(older.stats.peak_bytes, untouched) << "wrote past the caller's struct_size";
  host.free(&host, DPT_MEMORY_DEVICE, p);
}

TEST_F(HostTable, OutOfMemoryIsAnErrorNotACrash) {
  services.set_device("cpu", 0, 1024);
  void* p = reinterpret_cast<void*>(0x1);
  dpt_error* error = host.alloc(&host, DPT_MEMORY_DEVICE, 2048, 0, &p);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, DPT_OUT_OF_MEMORY);
  EXPECT_EQ(p, nullptr);
  host.error_free(&host, error);
}

TEST_F(HostTable, CancellationIsVisible) {
  EXPECT_EQ(host.is_cancelled(&host), 0);
  services.cancelled = true;
  EXPECT_EQ(host.is_cancelled(&host), 1);
}

TEST_F(HostTable, CopiesOnCpuAreSynchronous) {
  dpt_stream* stream = nullptr;
  ASSERT_EQ(host.stream_create(&host, &stream), nullptr);
  const char source[] = "dopant";
  char target[sizeof source] = {};
  ASSERT_EQ(host.copy(&host, target, DPT_MEMORY_DEVICE, source, DPT_MEMORY_HOST, sizeof source, stream), nullptr);
  EXPECT_STREQ(target, "dopant");
  ASSERT_EQ(host.stream_synchronize(&host, stream), nullptr);
  host.stream_destroy(&host, stream);
}

// A host whose parallel_for ran the chunks inline would see one thread.
TEST_F(HostTable, ParallelForRunsOnThePoolsThreads) {
  EXPECT_EQ(host.thread_count(&host), 2u);
  testing::ThreadsSeen seen;
  ASSERT_EQ(host.parallel_for(&host, 0, 4, 1, testing::wait_for_a_second_thread, &seen), nullptr);
  EXPECT_EQ(seen.ids.size(), 2u);
}

}  // namespace
}  // namespace dopant
