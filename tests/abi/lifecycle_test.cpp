// The library lifecycle and what the C API promises around it: init on the first runtime
// that loads a library and deinit after the last one is destroyed, serialized even when
// runtimes come and go on several threads at once; a runtime destroyed under live
// instances; errors with codes the core does not know; errors made by embedders; one
// plugin's parameters from TOML text; NULL handles; a plugin of a withdrawn draft kind.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "plugins/test_plugins.h"
#include "runtime_fixture.hpp"

namespace dopant::tests {
namespace {

const std::string kLifecyclePath = test_plugin_path("dopant-test-lifecycle.so");

// A runtime with no default paths; NULL (with a failure) on error.
dpt_runtime* new_runtime() {
  dpt_runtime_options options = DPT_RUNTIME_OPTIONS_INIT;
  options.skip_default_paths = 1;
  options.threads = 1;
  dpt_runtime* runtime = nullptr;
  const Outcome created = take(dpt_runtime_create(&options, &runtime));
  EXPECT_EQ(created.code, DPT_OK) << created.message;
  return runtime;
}

// Loads the lifecycle library into `runtime` and returns its probe.
const lifecycle_probe* load_lifecycle(dpt_runtime* runtime) {
  const Outcome loaded = take(dpt_runtime_load_library(runtime, kLifecyclePath.c_str()));
  EXPECT_EQ(loaded.code, DPT_OK) << loaded.message;
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime, LIFECYCLE_PLUGIN_ID);
  if (info == nullptr) return nullptr;
  return static_cast<const lifecycle_probe*>(info->descriptor->get_extension(LIFECYCLE_PROBE_ID));
}

lifecycle_counts counts_of(const lifecycle_probe* probe) {
  lifecycle_counts counts{};
  probe->read(&counts);
  return counts;
}

TEST(Lifecycle, InitOnTheFirstRuntimeDeinitAfterTheLast) {
  dpt_runtime* first = new_runtime();
  const lifecycle_probe* probe = load_lifecycle(first);
  ASSERT_NE(probe, nullptr);
  const lifecycle_counts start = counts_of(probe);  // the library may have lived before
  EXPECT_EQ(start.init_calls, start.deinit_calls + 1);

  dpt_runtime* second = new_runtime();
  ASSERT_NE(load_lifecycle(second), nullptr);
  EXPECT_EQ(counts_of(probe).init_calls, start.init_calls);  // already initialized

  dpt_runtime_destroy(first);
  EXPECT_EQ(counts_of(probe).deinit_calls, start.deinit_calls);  // `second` still holds it
  dpt_runtime_destroy(second);
  EXPECT_EQ(counts_of(probe).deinit_calls, start.deinit_calls + 1);

  dpt_runtime* third = new_runtime();  // loading after the deinit initializes again
  ASSERT_NE(load_lifecycle(third), nullptr);
  EXPECT_EQ(counts_of(probe).init_calls, start.init_calls + 1);
  dpt_runtime_destroy(third);
  const lifecycle_counts end = counts_of(probe);
  EXPECT_EQ(end.deinit_calls, start.deinit_calls + 2);
  EXPECT_EQ(end.overlapping_calls, 0);
}

TEST(Lifecycle, RuntimesOnManyThreadsPairEveryInitWithOneDeinit) {
  dpt_runtime* keeper = new_runtime();  // finds the probe; destroyed before the threads start
  const lifecycle_probe* probe = load_lifecycle(keeper);
  ASSERT_NE(probe, nullptr);
  dpt_runtime_destroy(keeper);
  const lifecycle_counts start = counts_of(probe);
  ASSERT_EQ(start.init_calls, start.deinit_calls);

  constexpr int kThreads = 4;
  constexpr int kRounds = 25;
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      for (int round = 0; round < kRounds; ++round) {
        dpt_runtime_options options = DPT_RUNTIME_OPTIONS_INIT;
        options.skip_default_paths = 1;
        options.threads = 1;
        dpt_runtime* runtime = nullptr;
        dpt_plugin_instance* instance = nullptr;
        if (dpt_error* e = dpt_runtime_create(&options, &runtime)) {
          dpt_error_destroy(e);
          ++failures;
          continue;
        }
        dpt_error* e = dpt_runtime_load_library(runtime, kLifecyclePath.c_str());
        if (e == nullptr) e = dpt_plugin_instance_create(runtime, LIFECYCLE_PLUGIN_ID, nullptr, &instance);
        if (e != nullptr) {
          dpt_error_destroy(e);
          ++failures;
        }
        dpt_plugin_instance_destroy(instance);
        dpt_runtime_destroy(runtime);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  const lifecycle_counts end = counts_of(probe);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(end.overlapping_calls, 0);
  EXPECT_GE(end.init_calls - start.init_calls, 1);
  EXPECT_EQ(end.init_calls - start.init_calls, end.deinit_calls - start.deinit_calls);
  EXPECT_EQ(end.live_instances, 0);
  EXPECT_EQ(end.deinit_with_live_instances, 0);
}

TEST(Lifecycle, DestroyingARuntimeDestroysItsLiveInstancesBeforeDeinit) {
  dpt_runtime* runtime = new_runtime();
  const lifecycle_probe* probe = load_lifecycle(runtime);
  ASSERT_NE(probe, nullptr);
  const lifecycle_counts start = counts_of(probe);
  dpt_plugin_instance* instances[2] = {};
  for (dpt_plugin_instance*& instance : instances) {
    ASSERT_EQ(take(dpt_plugin_instance_create(runtime, LIFECYCLE_PLUGIN_ID, nullptr, &instance)).code, DPT_OK);
  }
  EXPECT_EQ(counts_of(probe).live_instances, start.live_instances + 2);

  dpt_runtime_destroy(runtime);
  const lifecycle_counts end = counts_of(probe);
  EXPECT_EQ(end.live_instances, start.live_instances);
  EXPECT_EQ(end.deinit_calls, start.deinit_calls + 1);
  EXPECT_EQ(end.deinit_with_live_instances, start.deinit_with_live_instances);
  for (dpt_plugin_instance* orphan : instances) {
    EXPECT_EQ(dpt_plugin_instance_table(orphan), nullptr);
    EXPECT_EQ(dpt_plugin_instance_handle(orphan), nullptr);
    EXPECT_EQ(dpt_plugin_instance_info(orphan), nullptr);
    dpt_plugin_instance_destroy(orphan);  // frees the handle only
  }
  EXPECT_EQ(counts_of(probe).live_instances, start.live_instances);
}

TEST(Errors, ACodeTheCoreDoesNotKnowReadsAsInternal) {
  EXPECT_EQ(dpt_code_known_or_internal(DPT_ALREADY_EXISTS), DPT_ALREADY_EXISTS);
  EXPECT_EQ(dpt_code_known_or_internal(DPT_CODE_LAST + 1), DPT_INTERNAL);
  EXPECT_EQ(dpt_code_known_or_internal(-1), DPT_INTERNAL);

  dpt_runtime* runtime = new_runtime();
  const dpt_host* host = dpt_runtime_host(runtime);
  const Outcome from_plugin = take(host->error(host, 99, "from a newer plugin"));
  EXPECT_EQ(from_plugin.code, DPT_INTERNAL);
  EXPECT_EQ(from_plugin.message, "(error code 99, unknown to this dopant) from a newer plugin");
  const Outcome known = take(host->error(host, DPT_FAILED_PRECONDITION, "not yet"));
  EXPECT_EQ(known.code, DPT_FAILED_PRECONDITION);
  EXPECT_EQ(known.message, "not yet");
  dpt_runtime_destroy(runtime);

  EXPECT_STREQ(dpt_code_name(DPT_CANCELLED), "cancelled");
  EXPECT_STREQ(dpt_code_name(DPT_FAILED_PRECONDITION), "failed precondition");
  EXPECT_STREQ(dpt_code_name(DPT_ALREADY_EXISTS), "already exists");
  EXPECT_STREQ(dpt_code_name(99), "unknown error code");
}

#ifdef DOPANT_EXPECT_C_SGD
TEST(Errors, EmbeddersCreateErrorsAPluginCanReturn) {
  const Outcome made = take(dpt_error_create(DPT_DATA_LOSS, "the visitor's disk is full"));
  EXPECT_EQ(made.code, DPT_DATA_LOSS);
  EXPECT_EQ(made.message, "the visitor's disk is full");
  EXPECT_EQ(take(dpt_error_create(1000, nullptr)).code, DPT_INTERNAL);

  // A state visitor of the embedder fails the export; the plugin hands the error back.
  dpt_runtime* runtime = new_runtime();
  ASSERT_EQ(take(dpt_runtime_load_library(runtime, (std::string(DOPANT_PLUGIN_BUILD_DIR) +
                                                    "/dopant-c-sgd.so").c_str())).code, DPT_OK);
  dpt_config* params = nullptr;
  ASSERT_EQ(take(dpt_plugin_params_parse(runtime, "c-sgd", "momentum = 0.9", nullptr, &params)).code, DPT_OK);
  dpt_plugin_instance* instance = nullptr;
  ASSERT_EQ(take(dpt_plugin_instance_create(runtime, "c-sgd", params, &instance)).code, DPT_OK);
  const auto* table = static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance));
  dpt_instance* handle = dpt_plugin_instance_handle(instance);
  OneTensorGroup tensors({1.0f, 2.0f}, {0.5f, 0.5f});
  const dpt_param_group group = tensors.group();
  ASSERT_EQ(take(table->add_param_group(handle, &group)).code, DPT_OK);
  const dpt_step_args args = DPT_STEP_ARGS_INIT;
  ASSERT_EQ(take(table->step(handle, &args, nullptr)).code, DPT_OK);
  const auto refuse = [](void*, const char*, const char*, const DLTensor*) -> dpt_error* {
    return dpt_error_create(DPT_DATA_LOSS, "the visitor's disk is full");
  };
  const Outcome exported = take(table->export_state(handle, refuse, nullptr));
  EXPECT_EQ(exported.code, DPT_DATA_LOSS);
  EXPECT_EQ(exported.message, "the visitor's disk is full");
  dpt_plugin_instance_destroy(instance);
  dpt_plugin_params_destroy(params);
  dpt_runtime_destroy(runtime);
}
#endif

class PluginParams : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(load(kLifecyclePath).code, DPT_OK);
  }
};

TEST_F(PluginParams, TextSetsTheParametersTheInstanceUses) {
  dpt_config* params = nullptr;
  ASSERT_EQ(take(dpt_plugin_params_parse(runtime_, LIFECYCLE_PLUGIN_ID, "lr = 0.25\n", "p.toml", &params)).code,
            DPT_OK);
  dpt_plugin_instance* instance = nullptr;
  ASSERT_EQ(take(dpt_plugin_instance_create(runtime_, LIFECYCLE_PLUGIN_ID, params, &instance)).code, DPT_OK);
  dpt_plugin_params_destroy(params);  // read during create only
  const auto* table = static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance));
  dpt_instance* handle = dpt_plugin_instance_handle(instance);
  OneTensorGroup tensors({1.0f, 2.0f}, {2.0f, 4.0f});
  const dpt_param_group group = tensors.group();
  ASSERT_EQ(take(table->add_param_group(handle, &group)).code, DPT_OK);
  const dpt_step_args args = DPT_STEP_ARGS_INIT;
  ASSERT_EQ(take(table->step(handle, &args, nullptr)).code, DPT_OK);
  EXPECT_EQ(tensors.param, (std::vector<float>{0.5f, 1.0f}));  // p -= 0.25 * g
  dpt_plugin_instance_destroy(instance);
}

TEST_F(PluginParams, ProblemsNameTheSourceLineAndColumn) {
  dpt_config* params = reinterpret_cast<dpt_config*>(this);  // must be reset
  const Outcome typo = take(dpt_plugin_params_parse(runtime_, LIFECYCLE_PLUGIN_ID, "\nlrr = 0.1\n", "p.toml", &params));
  EXPECT_EQ(params, nullptr);
  EXPECT_EQ(typo.code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(typo.message, "p.toml:2:1: unknown parameter `lrr` for plugin `test-lifecycle`; did you mean `lr`?");

  const Outcome range = take(dpt_plugin_params_parse(runtime_, LIFECYCLE_PLUGIN_ID, "lr = -1.0", nullptr, &params));
  EXPECT_EQ(range.code, DPT_INVALID_ARGUMENT);
  EXPECT_NE(range.message.find("<params>:1:"), std::string::npos) << range.message;

  const Outcome toml = take(dpt_plugin_params_parse(runtime_, LIFECYCLE_PLUGIN_ID, "lr = = 1", nullptr, &params));
  EXPECT_EQ(toml.code, DPT_INVALID_ARGUMENT);
  EXPECT_NE(toml.message.find("invalid TOML"), std::string::npos) << toml.message;

  const Outcome unknown = take(dpt_plugin_params_parse(runtime_, "test-lifecycel", "", nullptr, &params));
  EXPECT_EQ(unknown.code, DPT_NOT_FOUND);
  EXPECT_EQ(unknown.message, "no plugin `test-lifecycel` is loaded; did you mean `test-lifecycle`?");
}

TEST(CApi, NullHandlesAreRefusedNotDereferenced) {
  dpt_plugin_instance* instance = nullptr;
  EXPECT_EQ(take(dpt_plugin_instance_create(nullptr, "c-sgd", nullptr, &instance)).code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(take(dpt_runtime_load_library(nullptr, "x.so")).code, DPT_INVALID_ARGUMENT);
  dpt_run_config* config = nullptr;
  EXPECT_EQ(take(dpt_run_config_parse(nullptr, "", nullptr, &config)).code, DPT_INVALID_ARGUMENT);
  dpt_config* params = nullptr;
  EXPECT_EQ(take(dpt_plugin_params_parse(nullptr, "c-sgd", "", nullptr, &params)).code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(dpt_runtime_host(nullptr), nullptr);
  EXPECT_EQ(dpt_runtime_plugin_count(nullptr), 0u);
  EXPECT_EQ(dpt_runtime_plugin(nullptr, 0), nullptr);
  EXPECT_EQ(dpt_runtime_find_plugin(nullptr, "c-sgd"), nullptr);
  EXPECT_EQ(dpt_runtime_load_problem_count(nullptr), 0u);
  EXPECT_EQ(dpt_runtime_metric_count(nullptr), 0u);
  EXPECT_EQ(dpt_run_config_variant_count(nullptr), 0u);
  EXPECT_EQ(dpt_run_config_workload(nullptr), nullptr);
  EXPECT_EQ(dpt_plugin_instance_table(nullptr), nullptr);
  dpt_runtime_cancel(nullptr);
  dpt_runtime_reset_memory_peaks(nullptr);
  dpt_runtime_metrics_clear(nullptr);
  dpt_runtime_destroy(nullptr);
  dpt_plugin_instance_destroy(nullptr);
}

// The exact-size rule of the draft tier is checked on the core's kind table directly
// (tests/core/kind_table_size_test.cpp): no kind is a draft today. A plugin built against a
// draft that was since promoted names a kind this core does not know.
TEST(DraftKinds, APluginOfAWithdrawnDraftIsRefusedByName) {
  dpt_runtime* runtime = new_runtime();
  const Outcome loaded =
      take(dpt_runtime_load_library(runtime, test_plugin_path("dopant-test-draft-withdrawn.so").c_str()));
  EXPECT_EQ(loaded.code, DPT_UNIMPLEMENTED);
  EXPECT_NE(loaded.message.find("has kind `dopant.checkpoint.draft/0`, which this dopant"), std::string::npos)
      << loaded.message;
  EXPECT_EQ(dpt_runtime_find_plugin(runtime, "test-draft-withdrawn"), nullptr);
  dpt_runtime_destroy(runtime);
}

}  // namespace
}  // namespace dopant::tests
