// Parameter declarations: the builders fill every dpt_param_decl field, param_list points at
// the declarations themselves, and sdk::Config reads the values the core validated.
#include <dopant/sdk/config.hpp>
#include <dopant/sdk/params.hpp>

#include "test_runtime.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sdk = dopant::sdk;

namespace {

constexpr const char* kModes[] = {"fast", "exact"};

constexpr dpt_param_decl kParams[] = {
    sdk::float_param("lr", "1e-4", "learning rate").range("0", "1"),
    sdk::size_param("chunk", "256MiB", "bytes per chunk").min("1MiB").unit("B"),
    sdk::enum_param("mode", "fast", kModes, "speed or exactness"),
    sdk::bool_param("pinned", "true", "use pinned memory"),
    sdk::int_param("slots", "2", "device slots").range("1", "8"),
    sdk::string_param("tag", "run", "free text"),
};

static_assert(sdk::param_list<kParams>.count == 6);
static_assert(sdk::param_list<kParams>.decls[0] == &kParams[0]);

TEST(SdkParams, ListPointsAtEveryDeclarationInOrder) {
  const sdk::ParamSpan list = sdk::param_list<kParams>;
  ASSERT_EQ(list.count, 6u);
  for (uint32_t i = 0; i < list.count; ++i) EXPECT_EQ(list.decls[i], &kParams[i]);
}

TEST(SdkParams, FloatDeclarationHasTypeDefaultRangeAndDoc) {
  const dpt_param_decl& lr = kParams[0];
  EXPECT_EQ(lr.struct_size, DPT_PARAM_DECL_SIZE_1_0);
  EXPECT_STREQ(lr.name, "lr");
  EXPECT_EQ(lr.type, DPT_PARAM_FLOAT);
  EXPECT_STREQ(lr.default_value, "1e-4");
  EXPECT_STREQ(lr.min_value, "0");
  EXPECT_STREQ(lr.max_value, "1");
  EXPECT_EQ(lr.choices, nullptr);
  EXPECT_EQ(lr.choice_count, 0u);
  EXPECT_EQ(lr.unit, nullptr);
  EXPECT_STREQ(lr.doc, "learning rate");
}

TEST(SdkParams, SizeDeclarationHasMinimumOnlyAndUnit) {
  const dpt_param_decl& chunk = kParams[1];
  EXPECT_EQ(chunk.type, DPT_PARAM_SIZE);
  EXPECT_STREQ(chunk.min_value, "1MiB");
  EXPECT_EQ(chunk.max_value, nullptr);
  EXPECT_STREQ(chunk.unit, "B");
}

TEST(SdkParams, EnumDeclarationListsItsChoices) {
  const dpt_param_decl& mode = kParams[2];
  EXPECT_EQ(mode.type, DPT_PARAM_ENUM);
  ASSERT_EQ(mode.choice_count, 2u);
  EXPECT_EQ(mode.choices, kModes);
  EXPECT_STREQ(mode.choices[1], "exact");
}

TEST(SdkParams, OtherTypes) {
  EXPECT_EQ(kParams[3].type, DPT_PARAM_BOOL);
  EXPECT_EQ(kParams[4].type, DPT_PARAM_INT);
  EXPECT_EQ(kParams[5].type, DPT_PARAM_STRING);
  EXPECT_EQ(kParams[5].min_value, nullptr);
}

// The declarations go through the core as a workload's parameters; a run file sets some of
// them and sdk::Config reads every type back.
TEST(SdkParams, ConfigReadsValidatedValuesOfEveryType) {
  TestRuntime runtime;
  const char* slots[] = {"optimizer"};
  const dpt_workload_decl decl{DPT_WORKLOAD_DECL_SIZE_1_0, "sdk-params-test", "test",
                               sdk::param_list<kParams>.decls, sdk::param_list<kParams>.count,
                               slots, 0};
  ASSERT_EQ(take_error(runtime.host(), dpt_runtime_declare_workload(runtime.get(), &decl)).message, "");
  const char* text =
      "[run]\nworkload = \"sdk-params-test\"\n"
      "[workload]\nlr = 0.5\nchunk = \"2MiB\"\nmode = \"exact\"\npinned = false\n";
  dpt_run_config* config = nullptr;
  ASSERT_EQ(take_error(runtime.host(),
                       dpt_run_config_parse(runtime.get(), text, "params_test.toml", &config))
                .message,
            "");
  const sdk::Config reader(runtime.host(), dpt_run_config_workload_params(config, 0));
  EXPECT_DOUBLE_EQ(reader.get_float("lr"), 0.5);
  EXPECT_EQ(reader.get_size("chunk"), 2u * 1024 * 1024);
  EXPECT_EQ(reader.get_string("mode"), "exact");
  EXPECT_FALSE(reader.get_bool("pinned"));
  EXPECT_EQ(reader.get_int("slots"), 2);  // default
  EXPECT_EQ(reader.get_string("tag"), "run");
  try {
    reader.get_int("lr");
    ADD_FAILURE() << "reading a float as int did not throw";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_INVALID_ARGUMENT);
  }
  EXPECT_THROW(reader.get_float("undeclared"), sdk::Error);
  dpt_run_config_destroy(config);
}

}  // namespace
