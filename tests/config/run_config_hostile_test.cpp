// Hostile input: deep nesting, huge numbers, odd bytes in names. Each must be a clean error
// on one line per problem, never a crash.
#include "fake_catalog.hpp"

#include <dopant/support/toml_input.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace dopant::testing {
namespace {

std::string repeated(std::string_view piece, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += piece;
  return out;
}

constexpr const char* kHeader = "[run]\nworkload = \"moe-routing\"\n";

TEST(RunConfigHostile, DeeplyNestedArrays) {
  const std::string text = kHeader + ("x = " + repeated("[", 100000) + repeated("]", 100000));
  EXPECT_EQ(parse_error(text), "run.toml:3:261: invalid TOML: Error while parsing value: exceeded "
                               "maximum nested value depth of 256 (TOML_MAX_NESTED_VALUES)");
}

TEST(RunConfigHostile, DeeplyDottedKeysAndHeaders) {
  EXPECT_EQ(parse_error(kHeader + ("[" + repeated("a.", 100000) + "a]")),
            "run.toml:3:130: key has more than 64 dotted parts");
  EXPECT_EQ(parse_error(kHeader + (repeated("'q' . ", 100000) + "b = 1")),
            "run.toml:3:385: key has more than 64 dotted parts");
}

TEST(RunConfigHostile, DotsInsideStringsAndCommentsAreFine) {
  const std::string many_dots = repeated("a.", 1000);
  EXPECT_EQ(parse_error(kHeader + ("# " + many_dots + "\n[device]\nkind = \"" + many_dots + "\"\n")),
            "run.toml:5:8: key `kind` in `[device]`: must be one of `cpu`, `cuda`, got "
            "`a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a....`");
}

TEST(RunConfigHostile, HugeNumbers) {
  EXPECT_EQ(parse_error(std::string(kHeader) + "repetitions = 99999999999999999999999\n"),
            "run.toml:3:38: invalid TOML: Error while parsing decimal integer: "
            "'99999999999999999999999' is not representable in 64 bits");
  EXPECT_EQ(parse_error(std::string(kHeader) +
                        "repetitions = 99999999999\n"
                        "[device]\n"
                        "index = -9999999999\n"
                        "memory_limit = \"99999999999999999999999999999TiB\"\n"),
            "run.toml:3:15: key `repetitions` in `[run]`: must be <= 4294967295, got 99999999999\n"
            "run.toml:5:9: key `index` in `[device]`: must be >= 0, got -9999999999\n"
            "run.toml:6:16: key `memory_limit` in `[device]`: size "
            "`99999999999999999999999999999TiB` is too large (max 2^64-1 bytes)");
  EXPECT_EQ(parse_error(std::string(kHeader) + "[device]\nmemory_limit = -1\n"),
            "run.toml:4:16: key `memory_limit` in `[device]`: size must not be negative");
}

TEST(RunConfigHostile, NonFiniteFloats) {
  EXPECT_EQ(parse_error("[run]\nworkload = \"optimizer-step\"\n[optimizer]\nplugin = \"adamw\"\nlr = nan\n"),
            "run.toml:5:6: parameter `lr` for plugin `adamw`: expected a finite number");
}

TEST(RunConfigHostile, ControlCharactersInNamesStayOnOneLine) {
  const std::string message = parse_error(std::string(kHeader) + "\"line\\nbreak\" = 1\n");
  EXPECT_EQ(message, "run.toml:3:1: unknown key `line\\nbreak` in `[run]`");
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(RunConfigHostile, ControlCharactersInVariantNamesAreRefused) {
  EXPECT_EQ(parse_error(std::string(kHeader) + "[variants.\"clear\\u001b[2J\"]\n"
                                               "[variants.\"two\\nlines\"]\n"
                                               "[variants.\"c1\\u0085csi\\u009b\"]\n"
                                               "[variants.\"bidi\\u202eevil\\u2066\"]\n"
                                               "[variants.\"caf\\u00e9\\u2014ok\"]\n"),
            "run.toml:3:11: variant name `clear\\x1b[2J` holds a control character\n"
            "run.toml:4:11: variant name `two\\nlines` holds a control character\n"
            "run.toml:5:11: variant name `c1\\u0085csi\\u009b` holds a control character\n"
            "run.toml:6:11: variant name `bidi\\u202eevil\\u2066` holds a control character");
}

TEST(RunConfigHostile, VeryLongNamesAreShortened) {
  const std::string name(5000, 'z');
  EXPECT_EQ(parse_error(std::string(kHeader) + "[" + name + "]\n"),
            "run.toml:3:2: unknown table `" + std::string(80, 'z') + "...`");
}

TEST(RunConfigHostile, WrongTypesEverywhere) {
  EXPECT_EQ(parse_error("run = [1, 2]\n"
                        "variants = \"none\"\n"
                        "[optimizer]\n"
                        "plugin = 7\n"),
            "run.toml:1:7: `[run]` must be a table, got array\n"
            "run.toml:2:12: `[variants]` must be a table, got string\n"
            "run.toml:4:10: key `plugin` in `[optimizer]` must be a string naming a plugin, got integer");
}

TEST(RunConfigHostile, ProblemsBeyondTheCapAreCounted) {
  std::string text = kHeader;
  for (int i = 0; i < 200; ++i) text += "unknown_" + std::to_string(i) + " = 1\n";
  const std::string message = parse_error(text);
  std::vector<std::string> lines;
  for (size_t start = 0, end = 0; start <= message.size(); start = end + 1) {
    end = std::min(message.find('\n', start), message.size());
    lines.push_back(message.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), kMaxReportedProblems + 1);
  EXPECT_EQ(lines.front(), "run.toml:3:1: unknown key `unknown_0` in `[run]`");
  EXPECT_EQ(lines[kMaxReportedProblems - 1], "run.toml:52:1: unknown key `unknown_49` in `[run]`");
  EXPECT_EQ(lines.back(), "run.toml: 150 more problems not shown");
}

TEST(RunConfigHostile, TextOverTheBoundIsRefusedBeforeParsing) {
  // A comment pads the text: at the bound it parses, one byte more is refused unparsed.
  std::string text = std::string(kHeader) + "#";
  text += std::string(kMaxTomlInputBytes - text.size() - 1, 'x') + "\n";
  ASSERT_EQ(text.size(), kMaxTomlInputBytes);
  EXPECT_NO_THROW(parse(text));
  text += "\n";
  EXPECT_EQ(parse_error(text), "run.toml: input of 4194305 bytes is larger than 4 MiB, the most dopant reads");
}

}  // namespace
}  // namespace dopant::testing
