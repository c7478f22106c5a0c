// The strict JSON reader: what RFC 8259 forbids is refused with the byte it was found at,
// and integers read exactly to 2^64 - 1.
#include <dopant/support/json_value.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace dopant {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_json(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonValue, DuplicateKeysAreRefusedNamingTheKeyAndItsByte) {
  EXPECT_EQ(error_of(R"({"a": 1, "a": 2})"), "JSON: duplicate key `a` at byte 9");
  EXPECT_EQ(error_of(R"({"x": {"a": 1, "b": 2, "a": 3}})"), "JSON: duplicate key `a` at byte 23");
  EXPECT_EQ(error_of(R"({"a": 1, "b": 2})"), "");
}

TEST(JsonValue, NumbersFollowTheGrammar) {
  for (const char* bad : {"01", "-", "1.", ".5", "1e", "1e+", "+1", "--1", "0x10", "Infinity", "NaN"}) {
    EXPECT_NE(error_of(bad), "") << bad;
  }
  EXPECT_EQ(parse_json("-0.5e+2").number(), -50.0);
  EXPECT_EQ(parse_json("0").number(), 0.0);
}

TEST(JsonValue, UnsignedIntegersAreExactUpTo64Bits) {
  EXPECT_EQ(parse_json("18446744073709551615").unsigned_integer(), UINT64_MAX);
  EXPECT_EQ(parse_json("9007199254740993").unsigned_integer(), 9007199254740993ull);  // 2^53 + 1
  for (const char* not_one : {"18446744073709551616", "1.0", "-1", "1e3", "\"1\""}) {
    EXPECT_THROW(parse_json(not_one).unsigned_integer(), std::runtime_error) << not_one;
  }
}

TEST(JsonValue, SurrogatePairsDecodeAndLoneOnesAreRefused) {
  EXPECT_EQ(parse_json(R"("\ud83d\ude00")").string(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_json(R"("\u00e9")").string(), "\xC3\xA9");
  EXPECT_NE(error_of(R"("\ud83d")"), "");
  EXPECT_NE(error_of(R"("\ude00")"), "");
  EXPECT_NE(error_of(R"("\ud83d\u0041")"), "");
}

TEST(JsonValue, DeepNestingAndTrailingTextAreRefused) {
  EXPECT_EQ(error_of(std::string(100000, '[')), "JSON: nesting too deep at byte 65");
  EXPECT_EQ(error_of("{} x"), "JSON: trailing characters at byte 3");
  EXPECT_NE(error_of("\"tab\there\""), "");
}

}  // namespace
}  // namespace dopant
