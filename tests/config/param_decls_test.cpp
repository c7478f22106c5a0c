// parse_param_decls: declarations become schemas; bad ones are refused with a message that
// names the owner and the parameter; fields beyond struct_size are never read.
#include "error.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace dopant {
namespace {

constexpr uint32_t kSize = DPT_PARAM_DECL_SIZE_1_0;

std::string decl_error(const std::vector<const dpt_param_decl*>& decls) {
  try {
    parse_param_decls(decls.data(), static_cast<uint32_t>(decls.size()), "adamw");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), DPT_INVALID_ARGUMENT);
    return error.what();
  }
  ADD_FAILURE() << "declarations were accepted";
  return "";
}

TEST(ParamDecls, ParsesEveryField) {
  const char* const choices[] = {"fp32", "bf16"};
  const dpt_param_decl chunk{kSize, "chunk", DPT_PARAM_SIZE, "256MiB", "1MiB", "4GiB", nullptr, 0, "B", "chunk bytes"};
  const dpt_param_decl dtype{kSize, "dtype", DPT_PARAM_ENUM, "bf16", nullptr, nullptr, choices, 2, nullptr, nullptr};
  const dpt_param_decl* const decls[] = {&chunk, &dtype};
  const auto schemas = parse_param_decls(decls, 2, "adamw-chunked-offload");
  ASSERT_EQ(schemas.size(), 2u);
  EXPECT_EQ(schemas[0].name, "chunk");
  EXPECT_EQ(schemas[0].type, ParamType::Size);
  EXPECT_EQ(schemas[0].default_value.size, 256ull << 20);
  ASSERT_TRUE(schemas[0].min && schemas[0].max);
  EXPECT_EQ(schemas[0].min->size, 1ull << 20);
  EXPECT_EQ(schemas[0].max->size, 4ull << 30);
  EXPECT_EQ(schemas[0].unit, "B");
  EXPECT_EQ(schemas[0].doc, "chunk bytes");
  EXPECT_EQ(schemas[1].type, ParamType::Enum);
  EXPECT_EQ(schemas[1].default_value.text, "bf16");
  EXPECT_EQ(schemas[1].choices, (std::vector<std::string>{"fp32", "bf16"}));
  EXPECT_EQ(schemas[1].unit, "");
}

TEST(ParamDecls, RejectsDefaultThatDoesNotParse) {
  const dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "fast", nullptr, nullptr, nullptr, 0, "", ""};
  EXPECT_EQ(decl_error({&lr}),
            "parameter `lr` of `adamw`: default `fast`: expected a finite number like 1e-4");
}

TEST(ParamDecls, RejectsDefaultOutsideItsBounds) {
  const dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "2", "0", "1", nullptr, 0, "", ""};
  EXPECT_EQ(decl_error({&lr}), "parameter `lr` of `adamw`: default `2`: must be <= 1, got 2");
}

TEST(ParamDecls, RejectsBadBoundsAndChoicesTogether) {
  const char* const twice[] = {"fp32", "fp32"};
  const dpt_param_decl slots{kSize, "slots", DPT_PARAM_INT, "2", "8", "1", nullptr, 0, "", ""};
  const dpt_param_decl dtype{kSize, "dtype", DPT_PARAM_ENUM, "fp32", nullptr, nullptr, twice, 2, "", ""};
  const dpt_param_decl flag{kSize, "flag", DPT_PARAM_BOOL, "true", "0", nullptr, nullptr, 0, "", ""};
  const dpt_param_decl chunk{kSize, "chunk", DPT_PARAM_SIZE, "1MiB", "1Mib", nullptr, nullptr, 0, "", ""};
  EXPECT_EQ(decl_error({&slots, &dtype, &flag, &chunk}),
            "parameter `slots` of `adamw`: min 8 is above max 1\n"
            "parameter `slots` of `adamw`: default `2`: must be >= 8, got 2\n"
            "parameter `dtype` of `adamw`: choice `fp32` is listed twice\n"
            "parameter `flag` of `adamw`: min bound given for a bool parameter\n"
            "parameter `chunk` of `adamw`: min bound `1Mib`: unknown size unit `Mib`; did you mean "
            "`MiB`? (units: B, K, M, G, T, P, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)");
}

TEST(ParamDecls, RejectsMalformedDeclarations) {
  const dpt_param_decl no_choices{kSize, "dtype", DPT_PARAM_ENUM, "fp32", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl bad_name{kSize, "chunk size", DPT_PARAM_SIZE, "1", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl bad_type{kSize, "mode", 42, "1", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl reserved{kSize, "plugin", DPT_PARAM_STRING, "", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl no_default{kSize, "lr", DPT_PARAM_FLOAT, nullptr, nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "1", nullptr, nullptr, nullptr, 0, "", ""};
  EXPECT_EQ(decl_error({&no_choices, &bad_name, &bad_type, &reserved, nullptr, &no_default, &lr, &lr}),
            "parameter `dtype` of `adamw`: enum parameter declares no choices\n"
            "parameter `chunk size` of `adamw`: name must be non-empty and use only letters, digits, "
            "`_` and `-`\n"
            "parameter `mode` of `adamw`: unknown type 42\n"
            "parameter `plugin` of `adamw`: the name is reserved for the slot's plugin id\n"
            "parameter `#4` of `adamw`: declaration is NULL\n"
            "parameter `lr` of `adamw`: default_value is missing\n"
            "parameter `lr` of `adamw`: declared twice");
}

// A declaration from an older, shorter struct: fields past struct_size are garbage here and
// must be treated as absent.
TEST(ParamDecls, NeverReadsPastStructSize) {
  const char* const garbage = "not-a-number";
  dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "0.5", garbage, garbage, nullptr, 7, garbage, garbage};
  lr.struct_size = static_cast<uint32_t>(offsetof(dpt_param_decl, min_value));
  const dpt_param_decl* const decls[] = {&lr};
  const auto schemas = parse_param_decls(decls, 1, "adamw");
  ASSERT_EQ(schemas.size(), 1u);
  EXPECT_EQ(schemas[0].default_value.real, 0.5);
  EXPECT_FALSE(schemas[0].min.has_value());
  EXPECT_FALSE(schemas[0].max.has_value());
  EXPECT_EQ(schemas[0].unit, "");
  EXPECT_EQ(schemas[0].doc, "");
}

TEST(ParamDecls, RejectsStructTooSmallForRequiredFields) {
  dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "0.5", nullptr, nullptr, nullptr, 0, "", ""};
  lr.struct_size = static_cast<uint32_t>(offsetof(dpt_param_decl, default_value));
  EXPECT_EQ(decl_error({&lr}), "parameter `#0` of `adamw`: struct_size " +
                                   std::to_string(lr.struct_size) +
                                   " is too small to hold name, type and default_value");
}

TEST(ParamDecls, DefaultsConfigHoldsEveryDefault) {
  const dpt_param_decl lr{kSize, "lr", DPT_PARAM_FLOAT, "1e-4", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl fused{kSize, "fused", DPT_PARAM_BOOL, "true", nullptr, nullptr, nullptr, 0, "", ""};
  const dpt_param_decl* const decls[] = {&lr, &fused};
  const dpt_config config = defaults_config("adamw", parse_param_decls(decls, 2, "adamw"));
  EXPECT_EQ(config.owner, "adamw");
  ASSERT_EQ(config.values.size(), 2u);
  EXPECT_EQ(config.values.at("lr").real, 1e-4);
  EXPECT_TRUE(config.values.at("fused").boolean);
}

}  // namespace
}  // namespace dopant
