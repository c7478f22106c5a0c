// dopant's rank layouts against Megatron's: the group tables in fixtures/layout_groups.json
// come from make_layout_fixture.py, a re-statement of Megatron-core's RankGenerator, and
// every group, every rank's own group and every coordinate must match them exactly. Sizes
// that do not fit are refused naming the product or size at fault.
#include <dopant/support/rank_layout.hpp>

#include <dopant/support/json_value.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace {

using dopant::JsonValue;
using dopant::layout::RankGrid;
using dopant::layout::RankGroup;

JsonValue read_fixture() {
  std::ifstream file(DOPANT_LAYOUT_FIXTURE);
  std::stringstream text;
  text << file.rdbuf();
  return dopant::parse_json(text.str());
}

std::vector<RankGroup> groups_of(const JsonValue& table) {
  std::vector<RankGroup> groups;
  for (const JsonValue& group : table.array()) {
    groups.emplace_back();
    for (const JsonValue& rank : group.array()) groups.back().push_back(static_cast<uint32_t>(rank.number()));
  }
  return groups;
}

uint32_t size_of(const JsonValue& item, const char* key) { return static_cast<uint32_t>(item.at(key).number()); }

// Megatron's groups of each name; each rank's group_of is the listed group holding it, and
// along a single dimension a rank's coordinate is its position in that group.
void expect_grid_matches(const RankGrid& grid, const JsonValue& tables, const std::string& where) {
  ASSERT_FALSE(tables.object().empty()) << where;
  for (const auto& [names, table] : tables.object()) {
    const std::vector<RankGroup> expected = groups_of(table);
    EXPECT_EQ(grid.groups(names), expected) << where << " group " << names;
    for (const RankGroup& group : expected) {
      for (size_t position = 0; position < group.size(); ++position) {
        const uint32_t rank = group[position];
        EXPECT_EQ(grid.group_of(rank, names), group) << where << " group " << names << " rank " << rank;
        if (names.find('-') == std::string::npos) {
          EXPECT_EQ(grid.coordinate(rank, names), position) << where << " " << names << " of rank " << rank;
        }
      }
    }
  }
}

TEST(RankLayout, GroupsEqualMegatronsForEveryFixtureWorld) {
  const JsonValue fixture = read_fixture();
  ASSERT_GE(fixture.at("cases").array().size(), 4u);
  for (const JsonValue& item : fixture.at("cases").array()) {
    dopant::layout::ParallelSizes sizes;
    sizes.world = size_of(item, "world");
    sizes.tp = size_of(item, "tp");
    sizes.pp = size_of(item, "pp");
    sizes.cp = size_of(item, "cp");
    sizes.ep = size_of(item, "ep");
    sizes.etp = size_of(item, "etp");
    sizes.order = item.at("order").string();
    const std::string where = "world " + std::to_string(sizes.world) + " order " + sizes.order;
    const auto layouts = dopant::layout::make_rank_layouts(sizes);
    EXPECT_EQ(layouts.dense.world(), sizes.world) << where;
    EXPECT_EQ(layouts.expert.world(), sizes.world) << where;
    expect_grid_matches(layouts.dense, item.at("dense"), where + " dense");
    expect_grid_matches(layouts.expert, item.at("expert"), where + " expert");
  }
}

// The fixture lists every group the library names, so the CLI's tables are all checked.
TEST(RankLayout, FixtureCoversEveryGroupTheLayoutsList) {
  const JsonValue fixture = read_fixture();
  const JsonValue& first = fixture.at("cases").array().front();
  for (const std::string& names : dopant::layout::dense_group_names()) EXPECT_TRUE(first.at("dense").has(names)) << names;
  for (const std::string& names : dopant::layout::expert_group_names()) EXPECT_TRUE(first.at("expert").has(names)) << names;
}

std::string refusal(const dopant::layout::ParallelSizes& sizes) {
  try {
    dopant::layout::make_rank_layouts(sizes);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

dopant::layout::ParallelSizes sizes_of(uint32_t world, uint32_t tp, uint32_t pp, uint32_t cp = 1, uint32_t ep = 1,
                                       std::optional<uint32_t> dp = std::nullopt) {
  dopant::layout::ParallelSizes sizes;
  sizes.world = world;
  sizes.tp = tp;
  sizes.pp = pp;
  sizes.cp = cp;
  sizes.ep = ep;
  sizes.dp = dp;
  return sizes;
}

TEST(RankLayout, InconsistentSizesAreRefusedNamingTheProductOrSize) {
  EXPECT_EQ(refusal(sizes_of(12, 2, 4)), "tp*pp*cp = 8 does not divide world 12");
  EXPECT_EQ(refusal(sizes_of(12, 2, 2, 1, 4)), "etp*ep*pp = 16 does not divide world 12");
  EXPECT_EQ(refusal(sizes_of(12, 2, 2, 1, 1, 2)), "dp = 2 does not match world 12 / (tp*pp*cp = 4) = 3");
  EXPECT_EQ(refusal(sizes_of(12, 0, 1)), "tp: must be at least 1, not 0");
  EXPECT_EQ(refusal(sizes_of(0, 1, 1)), "world: must be from 1 to 2147483647, not 0");
  EXPECT_EQ(refusal(sizes_of(16, 2147483647, 2147483647, 2147483647)),
            "tp*pp*cp = more than 2^64 does not divide world 16");
}

TEST(RankLayout, BadOrdersAreRefusedNamingTheDimension) {
  auto with_order = [](const char* order) {
    dopant::layout::ParallelSizes sizes = sizes_of(16, 2, 2, 1, 4);
    sizes.order = order;
    return refusal(sizes);
  };
  EXPECT_EQ(with_order("tp-xp-dp-pp"),
            "order `tp-xp-dp-pp`: unknown dimension `xp` (dimensions: `tp`, `pp`, `dp`, `ep`, `cp`, joined by `-`)");
  EXPECT_EQ(with_order("tp-dp-tp-pp"), "order `tp-dp-tp-pp`: `tp` appears twice");
  EXPECT_EQ(with_order("tp-dp-pp"), "order `tp-dp-pp` leaves out ep, but ep = 4");
  // Megatron requires pp last unless the expert dp equals dp: here 1 and 4.
  EXPECT_EQ(with_order("tp-pp-ep-dp"),
            "order `tp-pp-ep-dp` does not end with pp, so with pp = 2 the expert dp (1) must equal dp (4)");
}

TEST(RankLayout, UnknownGroupNamesAreRefused) {
  const auto layouts = dopant::layout::make_rank_layouts(sizes_of(8, 2, 1));
  EXPECT_THROW(layouts.dense.groups("ep"), std::invalid_argument);  // the dense layout has no ep
  EXPECT_THROW(layouts.dense.groups("tp-tp"), std::invalid_argument);
  EXPECT_EQ(layouts.expert.groups("ep").size(), 8u);
}

}  // namespace
