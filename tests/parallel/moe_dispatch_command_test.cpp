// The moe-dispatch workload's balanced placement through `dopant run` on one rank (the
// `local` world): more slots per rank than experts is refused naming redundant_slots, and
// no metric is reported for the failed run.
#include "command_output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using dopant::testing_support::command_output;

TEST(MoeDispatchCommand, TooManyRedundantSlotsAreRefusedNamingTheField) {
  const auto path = std::filesystem::temp_directory_path() / "dopant_moe_dispatch_slots.toml";
  std::ofstream(path) << "[run]\nworkload = \"moe-dispatch\"\nrepetitions = 1\n[device]\nkind = \"cpu\"\n"
                         "[workload]\ntokens_per_rank = 16\nhidden = 4\nexperts = 4\ntop_k = 2\niterations = 1\n"
                         "placement = \"balanced\"\nredundant_slots = 1\n[parallel]\nplugin = \"wideep\"\n";
  const auto [out, status] = command_output(std::string("'") + DOPANT_CLI + "' run '" + path.string() + "' 2>&1");
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("redundant_slots = 1 gives 5 slots per rank on 1 ranks, more than the 4 experts"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("load_max_over_mean"), std::string::npos) << out;
  std::filesystem::remove(path);
}

}  // namespace
