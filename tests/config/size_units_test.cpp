// parse_size: sizes with decimal and binary units, table-driven, good and bad.
#include "params.hpp"

#include <gtest/gtest.h>

namespace dopant {
namespace {

struct GoodSize {
  const char* text;
  uint64_t bytes;
};

void PrintTo(const GoodSize& size, std::ostream* out) { *out << '"' << size.text << '"'; }

class GoodSizes : public ::testing::TestWithParam<GoodSize> {};

TEST_P(GoodSizes, ParsesToBytes) {
  std::string error;
  const auto bytes = parse_size(GetParam().text, &error);
  ASSERT_TRUE(bytes.has_value()) << GetParam().text << ": " << error;
  EXPECT_EQ(*bytes, GetParam().bytes) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Units, GoodSizes,
    ::testing::Values(GoodSize{"0", 0}, GoodSize{"4096", 4096}, GoodSize{"17B", 17},
                      GoodSize{"256MiB", 268435456ull}, GoodSize{"1.5G", 1500000000ull},
                      GoodSize{"400M", 400000000ull}, GoodSize{"400MB", 400000000ull},
                      GoodSize{"2K", 2000}, GoodSize{"2KB", 2000}, GoodSize{"2KiB", 2048},
                      GoodSize{"1.5KiB", 1536}, GoodSize{"0.5MiB", 524288},
                      GoodSize{"3T", 3000000000000ull}, GoodSize{"1TiB", 1ull << 40},
                      GoodSize{"1P", 1000000000000000ull}, GoodSize{"2PiB", 2ull << 50},
                      GoodSize{"6GiB", 6ull << 30}, GoodSize{"1.000", 1}, GoodSize{".5K", 500},
                      GoodSize{"64 MiB", 64ull << 20},
                      GoodSize{"18446744073709551615", 18446744073709551615ull},
                      GoodSize{"1.500000000000000000000000000G", 1500000000ull}));

const std::string kUnitList = " (units: B, K, M, G, T, P, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)";

struct BadSize {
  std::string text;
  std::string error;
};

void PrintTo(const BadSize& size, std::ostream* out) { *out << '"' << size.text << '"'; }

class BadSizes : public ::testing::TestWithParam<BadSize> {};

TEST_P(BadSizes, ExplainsWhy) {
  std::string error;
  EXPECT_FALSE(parse_size(GetParam().text, &error).has_value()) << GetParam().text;
  EXPECT_EQ(error, GetParam().error) << GetParam().text;
}


INSTANTIATE_TEST_SUITE_P(
    Rejections, BadSizes,
    ::testing::Values(
        BadSize{"", "empty size"}, BadSize{"-1", "size must not be negative"},
        BadSize{"-2MiB", "size must not be negative"},
        BadSize{"MiB", "expected a size like \"256MiB\" or 4096, got `MiB`"},
        BadSize{"1.5", "size `1.5` is not a whole number of bytes"},
        BadSize{"1.0001K", "size `1.0001K` is not a whole number of bytes"},
        BadSize{"0.3KiB", "size `0.3KiB` is not a whole number of bytes"},
        BadSize{"0.000000000000000000000000001P",
                "size `0.000000000000000000000000001P` is not a whole number of bytes"},
        BadSize{"18446744073709551616", "size `18446744073709551616` is too large (max 2^64-1 bytes)"},
        BadSize{"16384PiB", "size `16384PiB` is too large (max 2^64-1 bytes)"},
        BadSize{"99999999999999999999999999G",
                "size `99999999999999999999999999G` is too large (max 2^64-1 bytes)"}));

INSTANTIATE_TEST_SUITE_P(
    UnknownUnits, BadSizes,
    ::testing::Values(BadSize{"256Mib", "unknown size unit `Mib`; did you mean `MiB`?" + kUnitList},
                      BadSize{"4kb", "unknown size unit `kb`; did you mean `KB`?" + kUnitList},
                      BadSize{"1e9", "unknown size unit `e9`" + kUnitList},
                      BadSize{"3 bytes", "unknown size unit `bytes`" + kUnitList}));

TEST(SizeUnits, NullErrorPointerIsAllowed) {
  EXPECT_FALSE(parse_size("12 parsecs", nullptr).has_value());
  EXPECT_EQ(parse_size("12", nullptr), std::optional<uint64_t>(12));
}

}  // namespace
}  // namespace dopant
