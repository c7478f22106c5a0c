// How the runtime treats plugin libraries at the ABI boundary: an older minor is widened,
// a wrong major, a missing entry symbol, a failing init and a duplicate id are refused with
// messages that say why, and an error from a plugin call reaches the caller while the
// runtime keeps working.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "plugins/test_plugins.h"
#include "runtime_fixture.hpp"

namespace dopant::tests {
namespace {

struct InstanceDeleter {
  void operator()(dpt_plugin_instance* instance) const { dpt_plugin_instance_destroy(instance); }
};
using Instance = std::unique_ptr<dpt_plugin_instance, InstanceDeleter>;

class LoaderTest : public RuntimeTest {
 protected:
  // An instance of `plugin_id` with its declared defaults; null (with a failure) on error.
  Instance create(const char* plugin_id) {
    dpt_plugin_instance* raw = nullptr;
    const Outcome created = take(dpt_plugin_instance_create(runtime_, plugin_id, nullptr, &raw));
    EXPECT_EQ(created.code, DPT_OK) << created.message;
    return Instance(raw);
  }

  static const dpt_optimizer_v1* optimizer(const Instance& instance) {
    return static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance.get()));
  }

  // One step of the minimal optimizer (lr 0.5 by default) over [1, 2, 3] with gradient 2.
  Outcome step_once(const Instance& instance, std::vector<float>* result) {
    OneTensorGroup tensors({1.0f, 2.0f, 3.0f}, {2.0f, 2.0f, 2.0f});
    const dpt_param_group group = tensors.group();
    const dpt_optimizer_v1* table = optimizer(instance);
    dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
    const Outcome added = take(table->add_param_group(handle, &group));
    if (added.code != DPT_OK) return added;
    const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, 1.0, 1.0, 0, nullptr};
    const Outcome stepped = take(table->step(handle, &args, nullptr));
    *result = tensors.param;
    return stepped;
  }

  void expect_older_minor_steps() {
    ASSERT_EQ(load(test_plugin_path("dopant-test-older-minor.so")).code, DPT_OK);
    const Instance instance = create("test-older-minor");
    ASSERT_NE(instance, nullptr);
    std::vector<float> result;
    const Outcome stepped = step_once(instance, &result);
    EXPECT_EQ(stepped.code, DPT_OK) << stepped.message;
    EXPECT_EQ(result, (std::vector<float>{0.0f, 1.0f, 2.0f}));
  }
};

// `text` with every occurrence of `part` removed.
std::string without(std::string text, const std::string& part) {
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part))
    text.erase(at, part.size());
  return text;
}

TEST_F(LoaderTest, OlderMinorLoadsWidenedAndSteps) {
  ASSERT_EQ(load(test_plugin_path("dopant-test-older-minor.so")).code, DPT_OK);
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime_, "test-older-minor");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->library_abi_minor, 0u);
  EXPECT_STREQ(info->descriptor->kind, DPT_KIND_OPTIMIZER);

  const Instance instance = create("test-older-minor");
  ASSERT_NE(instance, nullptr);
  const dpt_optimizer_v1* table = optimizer(instance);
  ASSERT_NE(table, nullptr);
  EXPECT_GE(table->struct_size, DPT_OPTIMIZER_V1_SIZE_1_1);
  // The plugin's bytes past its 1.0 size hold a non-NULL poison; widened, the slot is NULL.
  EXPECT_EQ(table->memory, nullptr);

  std::vector<float> result;
  const Outcome stepped = step_once(instance, &result);
  EXPECT_EQ(stepped.code, DPT_OK) << stepped.message;
  EXPECT_EQ(result, (std::vector<float>{0.0f, 1.0f, 2.0f}));
}

TEST_F(LoaderTest, WrongMajorIsRefusedNamingFileAndVersions) {
  const std::string path = test_plugin_path("dopant-test-wrong-major.so");
  const uint32_t before = dpt_runtime_plugin_count(runtime_);
  const Outcome loaded = load(path);
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(path), std::string::npos) << loaded.message;
  const std::string rest = without(loaded.message, path);
  const std::string core_version =
      std::to_string(DPT_ABI_MAJOR) + "." + std::to_string(DPT_ABI_MINOR);
  EXPECT_NE(rest.find("2.0"), std::string::npos) << "the library's version: " << loaded.message;
  EXPECT_NE(rest.find(core_version), std::string::npos) << "the core's version: " << loaded.message;
  EXPECT_EQ(dpt_runtime_find_plugin(runtime_, "test-wrong-major"), nullptr);
  EXPECT_EQ(dpt_runtime_plugin_count(runtime_), before);
}

TEST_F(LoaderTest, LibraryWithoutEntrySymbolIsRefusedClearly) {
  const std::string path = test_plugin_path("test-no-entry.so");
  const Outcome loaded = load(path);
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(path), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.find(DPT_PLUGIN_ENTRY_SYMBOL), std::string::npos) << loaded.message;
  EXPECT_EQ(loaded.code, DPT_INVALID_ARGUMENT);  // the file is there: not NOT_FOUND
}

TEST_F(LoaderTest, MissingFileIsRefusedNamingIt) {
  const std::string path = test_plugin_path("dopant-test-does-not-exist.so");
  const Outcome loaded = load(path);
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(path), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.find("file not found"), std::string::npos) << loaded.message;
  EXPECT_EQ(loaded.code, DPT_NOT_FOUND);
}

TEST_F(LoaderTest, EmptyLibraryIsRefusedWithTheTrueReasonNotFileNotFound) {
  const std::string path = ::testing::TempDir() + "dopant-empty-library.so";
  std::fclose(std::fopen(path.c_str(), "w"));
  const Outcome loaded = load(path);
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(path), std::string::npos) << loaded.message;
  EXPECT_EQ(loaded.message.find("file not found"), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.find("file too short"), std::string::npos) << loaded.message;
  EXPECT_EQ(loaded.code, DPT_INVALID_ARGUMENT);
  std::remove(path.c_str());
}

TEST_F(LoaderTest, FailingInitIsRefusedWithThePluginsMessage) {
  const Outcome loaded = load(test_plugin_path("dopant-test-init-fails.so"));
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(INIT_FAILS_MESSAGE), std::string::npos) << loaded.message;
  EXPECT_EQ(dpt_runtime_find_plugin(runtime_, "test-init-fails"), nullptr);
  expect_older_minor_steps();
}

TEST_F(LoaderTest, DuplicateIdIsRefusedNamingIdAndBothFiles) {
  const std::string first = test_plugin_path("dopant-test-duplicate-a.so");
  const std::string second = test_plugin_path("dopant-test-duplicate-b.so");
  ASSERT_EQ(load(first).code, DPT_OK);
  const uint32_t before = dpt_runtime_plugin_count(runtime_);
  const Outcome loaded = load(second);
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find(DUPLICATE_PLUGIN_ID), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.find(first), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.find(second), std::string::npos) << loaded.message;
  EXPECT_EQ(dpt_runtime_plugin_count(runtime_), before);
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime_, DUPLICATE_PLUGIN_ID);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(std::string(info->library_path), first);
}

TEST_F(LoaderTest, NullRequiredSlotIsRefusedNamingTheSlot) {
  for (const char* slot : {"step", "export_state"}) {
    std::string file = std::string("dopant-test-no-") + slot + ".so";
    std::replace(file.begin(), file.end(), '_', '-');
    const Outcome loaded = load(test_plugin_path(file.c_str()));
    ASSERT_NE(loaded.code, DPT_OK) << file;
    EXPECT_NE(loaded.message.find(std::string("optimizer table has no `") + slot + "`"), std::string::npos)
        << loaded.message;
    EXPECT_NE(loaded.message.find(file), std::string::npos) << loaded.message;
    EXPECT_EQ(dpt_runtime_find_plugin(runtime_, "test-missing-slot"), nullptr);
  }
}

// Each broken build of plugins/junk_library.c is refused, naming what is wrong, and loads
// nothing; build 0, the same library unbroken, loads.
TEST_F(LoaderTest, EveryJunkLibraryIsRefusedSayingWhy) {
  const char* const expected[] = {
      "",  // 0: the control
      "dpt_plugin_entry_v1 returned NULL",
      "library struct_size 51 is smaller than the smallest released size 52",
      "plugin descriptor struct_size 63 is smaller than the smallest released size 64",
      "plugin `test-junk`: kind table struct_size 55 is smaller than the smallest released size 56",
      "NULL plugin descriptor",
      "plugin `test-junk` returns no table for its own kind `dopant.optimizer/1`",
      "a plugin has no id",
      "plugin `test-junk` names no kind",
      "has kind `dopant.teleporter/1`, which this dopant (ABI 1.4) does not know",
      "plugin id `test-junk` listed twice",
      "parameter `lr` of `test-junk`: unknown type 77",
      "parameter `lr` of `test-junk`: default `fast`: expected a finite number",
      "library struct_size 8 is too small to hold a version"};
  for (int defect = 0; defect <= 13; ++defect) {
    const std::string file = "dopant-test-junk-" + std::to_string(defect) + ".so";
    dpt_runtime* runtime = nullptr;
    dpt_runtime_options options = DPT_RUNTIME_OPTIONS_INIT;
    options.skip_default_paths = 1;
    ASSERT_EQ(dpt_runtime_create(&options, &runtime), nullptr);
    dpt_error* error = dpt_runtime_load_library(runtime, test_plugin_path(file.c_str()).c_str());
    const std::string message = error ? dpt_error_get_message(error) : "";
    dpt_error_destroy(error);
    if (defect == 0) {
      EXPECT_EQ(message, "");
      EXPECT_NE(dpt_runtime_find_plugin(runtime, "test-junk"), nullptr);
    } else {
      EXPECT_EQ(message.rfind(test_plugin_path(file.c_str()) + ": ", 0), 0u) << defect << ": " << message;
      EXPECT_NE(message.find(expected[defect]), std::string::npos) << defect << ": " << message;
      EXPECT_EQ(dpt_runtime_plugin_count(runtime), 0u) << defect;
    }
    dpt_runtime_destroy(runtime);
  }
}

TEST_F(LoaderTest, IdWithControlCharactersIsRefusedAndShownEscaped) {
  const Outcome loaded = load(test_plugin_path("dopant-test-control-char-name.so"));
  ASSERT_NE(loaded.code, DPT_OK);
  EXPECT_NE(loaded.message.find("plugin id `test-\\x1b[2J\\nid` holds a control character"), std::string::npos)
      << loaded.message;
  EXPECT_EQ(loaded.message.find('\x1b'), std::string::npos) << loaded.message;
  EXPECT_EQ(dpt_runtime_plugin_count(runtime_), 0u);
}

TEST_F(LoaderTest, MissingPluginFolderIsALoadProblemNamingIt) {
  const std::string folder = std::string(DOPANT_TEST_PLUGIN_DIR) + "/no-such-folder";
  dpt_runtime_options options = DPT_RUNTIME_OPTIONS_INIT;
  options.plugin_path = folder.c_str();
  options.skip_default_paths = 1;
  dpt_runtime* runtime = nullptr;
  ASSERT_EQ(take(dpt_runtime_create(&options, &runtime)).code, DPT_OK);
  ASSERT_EQ(dpt_runtime_load_problem_count(runtime), 1u);
  const std::string problem = dpt_runtime_load_problem(runtime, 0);
  EXPECT_NE(problem.find(folder + ": plugin folder does not exist"), std::string::npos) << problem;
  dpt_runtime_destroy(runtime);
}

TEST_F(LoaderTest, StepErrorReachesTheCallerAndRuntimeKeepsWorking) {
  ASSERT_EQ(load(test_plugin_path("dopant-test-step-fails.so")).code, DPT_OK);
  const Instance failing = create("test-step-fails");
  ASSERT_NE(failing, nullptr);
  std::vector<float> result;
  const Outcome first = step_once(failing, &result);
  EXPECT_EQ(first.code, DPT_RESOURCE_EXHAUSTED);
  EXPECT_NE(first.message.find(STEP_FAILS_MESSAGE), std::string::npos) << first.message;

  expect_older_minor_steps();

  const Outcome again = step_once(failing, &result);
  EXPECT_EQ(again.code, DPT_RESOURCE_EXHAUSTED) << again.message;
}

}  // namespace
}  // namespace dopant::tests
