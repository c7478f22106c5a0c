// Mann-Whitney U against SciPy 1.10 (fixtures/mannwhitney_reference.json): U to 1e-9 and p
// to 1e-6 on small and large samples, with and without ties; plus ranks and the exact
// distribution's known values.
#include "fixture_reader.hpp"
#include "statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace dopant::ab {
namespace {

TEST(MannWhitney, MatchesScipyReference) {
  const JsonValue fixture = testing::read_fixture("mannwhitney_reference.json");
  const auto& cases = fixture.at("cases").array();
  ASSERT_GE(cases.size(), 15u);
  size_t exact = 0;
  size_t asymptotic = 0;
  for (const JsonValue& c : cases) {
    const std::string name = c.at("name").string();
    const MannWhitneyResult result = mann_whitney_u(testing::numbers(c.at("x")), testing::numbers(c.at("y")));
    EXPECT_NEAR(result.u, c.at("u").number(), 1e-9) << name;
    EXPECT_NEAR(result.p, c.at("p").number(), 1e-6) << name;
    (result.method == MannWhitneyMethod::exact ? exact : asymptotic) += 1;
  }
  EXPECT_GE(exact, 5u);
  EXPECT_GE(asymptotic, 5u);
}

TEST(MannWhitney, ChoosesExactOnlyForSmallSamplesWithoutTies) {
  EXPECT_EQ(mann_whitney_u({1, 2, 3}, {4, 5, 6}).method, MannWhitneyMethod::exact);
  EXPECT_EQ(mann_whitney_u({1, 2, 3}, {3, 5, 6}).method, MannWhitneyMethod::asymptotic);
  std::vector<double> nine{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<double> other{11, 12, 13, 14, 15, 16, 17, 18, 19};
  EXPECT_EQ(mann_whitney_u(nine, other).method, MannWhitneyMethod::asymptotic);
  other.resize(8);
  EXPECT_EQ(mann_whitney_u(nine, other).method, MannWhitneyMethod::exact);
}

TEST(MannWhitney, AverageRanksShareTies) {
  const std::vector<double> ranks = average_ranks({3.0, 1.0, 3.0, 2.0, 3.0});
  EXPECT_EQ(ranks, (std::vector<double>{4.0, 1.0, 4.0, 2.0, 4.0}));
}

TEST(MannWhitney, ExactSurvivalKnownValues) {
  // m = n = 2: U takes 0, 1, 2, 2, 3, 4 over the six arrangements.
  EXPECT_DOUBLE_EQ(exact_u_survival(0, 2, 2), 1.0);
  EXPECT_DOUBLE_EQ(exact_u_survival(2, 2, 2), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(exact_u_survival(4, 2, 2), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(exact_u_survival(5, 2, 2), 0.0);
  // Completely separated 7 vs 7: two-sided p = 2 / C(14, 7).
  const MannWhitneyResult separated = mann_whitney_u({1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14});
  EXPECT_DOUBLE_EQ(separated.u, 0.0);
  EXPECT_NEAR(separated.p, 2.0 / 3432.0, 1e-15);
}

TEST(MannWhitney, RejectsEmptyOrNaN) {
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0, std::nan("")}, {1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace dopant::ab
