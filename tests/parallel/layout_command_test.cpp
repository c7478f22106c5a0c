// `dopant layout` through the CLI: its --json groups and coordinates equal Megatron's
// tables (fixtures/layout_groups.json, from make_layout_fixture.py), the text table shows
// them too, and inconsistent sizes or bad arguments are usage errors naming the product or
// the flag.
#include "command_output.hpp"
#include <dopant/support/json_value.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using dopant::JsonValue;
using dopant::testing_support::command_output;

std::string layout(const std::string& arguments) { return std::string("'") + DOPANT_CLI + "' layout " + arguments; }

JsonValue fixture_case(size_t index) {
  std::ifstream file(DOPANT_LAYOUT_FIXTURE);
  std::stringstream text;
  text << file.rdbuf();
  return dopant::parse_json(text.str()).at("cases").array().at(index);
}

// The CLI prints the expert layout's tp and dp as etp and edp.
std::string expert_name(std::string names) {
  std::string out;
  std::stringstream parts(names);
  for (std::string part; std::getline(parts, part, '-');) {
    out += (out.empty() ? "" : "-") + (part == "tp" ? "etp" : part == "dp" ? "edp" : part);
  }
  return out;
}

TEST(LayoutCommand, JsonGroupsEqualMegatronsForWorld16WithExpertParallelism) {
  const JsonValue expected = fixture_case(1);  // world 16, tp 2, pp 2, ep 4
  ASSERT_EQ(expected.at("world").number(), 16);
  ASSERT_EQ(expected.at("ep").number(), 4);
  const auto [text, status] = command_output(layout("--world 16 --tp 2 --pp 2 --ep 4 --json"));
  ASSERT_EQ(status, 0) << text;
  const JsonValue printed = dopant::parse_json(text);
  EXPECT_EQ(printed.at("sizes").at("dp").number(), 4);
  EXPECT_EQ(printed.at("sizes").at("edp").number(), 1);
  for (const auto& [names, groups] : expected.at("dense").object()) {
    const auto& got = printed.at("dense").at("groups").at(names).array();
    ASSERT_EQ(got.size(), groups.array().size()) << "dense " << names;
    for (size_t g = 0; g < groups.array().size(); ++g) {
      for (size_t m = 0; m < groups.array()[g].array().size(); ++m) {
        EXPECT_EQ(got.at(g).array().at(m).number(), groups.array()[g].array()[m].number()) << "dense " << names;
      }
    }
  }
  for (const auto& [names, groups] : expected.at("expert").object()) {
    const auto& got = printed.at("expert").at("groups").at(expert_name(names)).array();
    ASSERT_EQ(got.size(), groups.array().size()) << "expert " << names;
    for (size_t g = 0; g < groups.array().size(); ++g) {
      for (size_t m = 0; m < groups.array()[g].array().size(); ++m) {
        EXPECT_EQ(got[g].array().at(m).number(), groups.array()[g].array()[m].number()) << "expert " << names;
      }
    }
  }
  // Rank 5 sits at position 1 of its tp group [4, 5] and position 2 of its ep group [1, 3, 5, 7].
  const JsonValue& rank5 = printed.at("expert").at("coordinates").array().at(5);
  EXPECT_EQ(rank5.at("etp").number(), 1);
  EXPECT_EQ(rank5.at("ep").number(), 2);
  EXPECT_EQ(printed.at("dense").at("coordinates").array().at(5).at("dp").number(), 2);
}

TEST(LayoutCommand, TextListsCoordinatesAndGroups) {
  const auto [text, status] = command_output(layout("--world 8 --tp 2 --pp 2"));
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("dense:  tp 2, cp 1, dp 2, pp 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  dp: [0, 2] [1, 3] [4, 6] [5, 7]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  pp: [0, 4] [1, 5] [2, 6] [3, 7]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  etp-ep-pp: [0, 1, 4, 5] [2, 3, 6, 7]\n"), std::string::npos) << text;
}

TEST(LayoutCommand, InconsistentSizesAreRefusedNamingTheProduct) {
  const auto [err, status] = command_output(layout("--world 12 --tp 2 --pp 4 2>&1"));
  EXPECT_EQ(status, 2) << err;
  EXPECT_EQ(err, "dopant: tp*pp*cp = 8 does not divide world 12\n");
  const auto [expert, expert_status] = command_output(layout("--world 8 --tp 2 --ep 8 2>&1"));
  EXPECT_EQ(expert_status, 2) << expert;
  EXPECT_EQ(expert, "dopant: etp*ep*pp = 16 does not divide world 8\n");
}

TEST(LayoutCommand, BadArgumentsAreRefusedNamingTheFlag) {
  const struct {
    const char* arguments;
    const char* message;
  } refused[] = {
      {"--world 8 --tp x", "dopant: --tp: `x` is not a count (1 to 2147483647)\n"},
      {"--world 0", "dopant: --world: `0` is out of range (1 to 2147483647)\n"},
      {"--world 8 --tp 2 --tp 4", "dopant: --tp: given twice (`2`, `4`); give it once\n"},
      {"--tp 2", "dopant: layout: --world is required; usage: dopant layout --world N [--tp T] [--pp P] [--ep E] "
                 "[--cp C] [--dp D] [--etp X] [--order tp-cp-ep-dp-pp] [--json]\n"},
      {"--world 8 --order tp-zz", "dopant: order `tp-zz`: unknown dimension `zz` (dimensions: `tp`, `pp`, `dp`, "
                                  "`ep`, `cp`, joined by `-`)\n"},
  };
  for (const auto& item : refused) {
    const auto [err, status] = command_output(layout(std::string(item.arguments) + " 2>&1"));
    EXPECT_EQ(status, 2) << item.arguments;
    EXPECT_EQ(err, item.message) << item.arguments;
  }
}

}  // namespace
