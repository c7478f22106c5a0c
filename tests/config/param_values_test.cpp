// parse_value_text, check_value_bounds and format_value for every parameter type.
#include "params.hpp"

#include <gtest/gtest.h>

namespace dopant {
namespace {

ParamSchema schema_of(ParamType type) {
  ParamSchema schema;
  schema.name = "p";
  schema.type = type;
  return schema;
}

ParamValue parsed(const ParamSchema& schema, std::string_view text) {
  std::string error;
  auto value = parse_value_text(schema, text, &error);
  EXPECT_TRUE(value.has_value()) << text << ": " << error;
  return value.value_or(ParamValue{});
}

std::string rejection(const ParamSchema& schema, std::string_view text) {
  std::string error;
  EXPECT_FALSE(parse_value_text(schema, text, &error).has_value()) << text;
  return error;
}

TEST(ParamValues, ParsesEachType) {
  EXPECT_TRUE(parsed(schema_of(ParamType::Bool), "true").boolean);
  EXPECT_FALSE(parsed(schema_of(ParamType::Bool), "false").boolean);
  EXPECT_EQ(parsed(schema_of(ParamType::Int), "-42").integer, -42);
  EXPECT_EQ(parsed(schema_of(ParamType::Int), "+7").integer, 7);
  EXPECT_EQ(parsed(schema_of(ParamType::Float), "1e-4").real, 1e-4);
  EXPECT_EQ(parsed(schema_of(ParamType::Float), "3").real, 3.0);
  EXPECT_EQ(parsed(schema_of(ParamType::Size), "256MiB").size, 268435456ull);
  EXPECT_EQ(parsed(schema_of(ParamType::String), "any text").text, "any text");
  EXPECT_EQ(parsed(schema_of(ParamType::Float), "1e-4").type, ParamType::Float);
}

TEST(ParamValues, RejectsTextOfTheWrongShape) {
  EXPECT_EQ(rejection(schema_of(ParamType::Bool), "yes"), "expected true or false");
  EXPECT_EQ(rejection(schema_of(ParamType::Int), "1.5"), "expected a 64-bit integer");
  EXPECT_EQ(rejection(schema_of(ParamType::Int), "99999999999999999999"), "expected a 64-bit integer");
  EXPECT_EQ(rejection(schema_of(ParamType::Int), ""), "expected a 64-bit integer");
  EXPECT_EQ(rejection(schema_of(ParamType::Int), "+-7"), "expected a 64-bit integer");
  EXPECT_EQ(rejection(schema_of(ParamType::Float), "+-1e-4"), "expected a finite number like 1e-4");
  EXPECT_EQ(rejection(schema_of(ParamType::Float), "inf"), "expected a finite number like 1e-4");
  EXPECT_EQ(rejection(schema_of(ParamType::Float), "nan"), "expected a finite number like 1e-4");
  EXPECT_EQ(rejection(schema_of(ParamType::Float), "1e-4x"), "expected a finite number like 1e-4");
  EXPECT_EQ(rejection(schema_of(ParamType::Size), "-5"), "size must not be negative");
}

TEST(ParamValues, ChecksInclusiveRanges) {
  ParamSchema slots = schema_of(ParamType::Int);
  slots.min = parsed(slots, "1");
  slots.max = parsed(slots, "8");
  EXPECT_EQ(parsed(slots, "1").integer, 1);
  EXPECT_EQ(parsed(slots, "8").integer, 8);
  EXPECT_EQ(rejection(slots, "0"), "must be >= 1, got 0");
  EXPECT_EQ(rejection(slots, "9"), "must be <= 8, got 9");

  ParamSchema chunk = schema_of(ParamType::Size);
  chunk.max = parsed(chunk, "4GiB");
  EXPECT_EQ(rejection(chunk, "5GiB"), "must be <= 4GiB, got 5GiB");

  ParamSchema lr = schema_of(ParamType::Float);
  lr.min = parsed(lr, "0");
  EXPECT_EQ(rejection(lr, "-0.5"), "must be >= 0, got -0.5");
}

TEST(ParamValues, EnumSuggestsTheClosestChoice) {
  ParamSchema dtype = schema_of(ParamType::Enum);
  dtype.choices = {"fp32", "bf16", "fp16"};
  EXPECT_EQ(parsed(dtype, "bf16").text, "bf16");
  EXPECT_EQ(rejection(dtype, "bf61"), "must be one of `fp32`, `bf16`, `fp16`, got `bf61`; did you mean `bf16`?");
  EXPECT_EQ(rejection(dtype, "int8"), "must be one of `fp32`, `bf16`, `fp16`, got `int8`");
}

TEST(ParamValues, BoundsCheckRejectsMismatchedType) {
  ParamValue text;
  text.type = ParamType::String;
  std::string error;
  EXPECT_FALSE(check_value_bounds(schema_of(ParamType::Int), text, &error));
  EXPECT_EQ(error, "expected int, got string");
}

TEST(ParamValues, FormatsAsConfigText) {
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Bool), "true")), "true");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Int), "-42")), "-42");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Float), "1e-4")), "0.0001");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Size), "268435456")), "256MiB");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Size), "400M")), "400MB");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Size), "1.5G")), "1500MB");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Size), "1001")), "1001");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::Size), "0")), "0");
  EXPECT_EQ(format_value(parsed(schema_of(ParamType::String), "fp32")), "fp32");
}

TEST(ParamValues, FormattedTextParsesBackToTheSameValue) {
  for (const char* text : {"1e-4", "0.1", "123456.789", "1e300", "-2.5e-300"}) {
    const ParamValue value = parsed(schema_of(ParamType::Float), text);
    EXPECT_EQ(parsed(schema_of(ParamType::Float), format_value(value)).real, value.real) << text;
  }
  for (const char* text : {"1", "1536", "6GiB", "1P", "18446744073709551615"}) {
    const ParamValue value = parsed(schema_of(ParamType::Size), text);
    EXPECT_EQ(parsed(schema_of(ParamType::Size), format_value(value)).size, value.size) << text;
  }
}

TEST(ParamValues, TypeNames) {
  EXPECT_STREQ(param_type_name(ParamType::Size), "size");
  EXPECT_STREQ(param_type_name(ParamType::Enum), "enum");
  EXPECT_STREQ(param_type_name(ParamType::Float), "float");
}

}  // namespace
}  // namespace dopant
