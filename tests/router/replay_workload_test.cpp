// The router-replay workload through `dopant run --json`, on a small config
// (fixtures/router_replay_small.toml): with replay on no token is routed otherwise than at
// inference, with it off the bf16-sized perturbation moves some; the payload bytes of each
// turn are the codecs' sizes worked out here from the shape (base64 of every row so far for
// replay-full, header + 6 bits per new id + CRC for replay-delta).
#include "command_output.hpp"

#include <dopant/support/json_value.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSessions = 2, kTurns = 3, kNewTokens = 64, kLayers = 4, kTopK = 4;  // 64 experts: 6 bits

// The median of each metric of one variant's run.
std::map<std::string, double> run_variant(const std::string& variant) {
  const fs::path json = fs::temp_directory_path() / ("dopant_router_replay_" + std::to_string(getpid()) + ".json");
  const auto [out, status] = dopant::testing_support::command_output(
      std::string(DOPANT_CLI) + " --plugin-path " + DOPANT_ROUTER_PLUGIN_DIR + " run " + DOPANT_SMALL_RUN +
      " --variant " + variant + " --json " + json.string() + " 2>&1");
  EXPECT_EQ(status, 0) << out;
  std::ifstream file(json);
  const dopant::JsonValue report = dopant::parse_json(std::string(std::istreambuf_iterator<char>(file), {}));
  fs::remove(json);
  std::map<std::string, double> metrics;
  for (const dopant::JsonValue& metric : report.at("metrics").array()) {
    metrics[metric.at("name").string()] = metric.at("median").number();
  }
  return metrics;
}

TEST(RouterReplayWorkload, ReplayOnRoutesAsInferenceDidAndOffDoesNot) {
  for (const char* variant : {"base", "delta"}) {
    const auto metrics = run_variant(variant);
    EXPECT_EQ(metrics.at("mismatch_replay_on"), 0.0) << variant;
    EXPECT_GT(metrics.at("mismatch_replay_off"), 0.0) << variant;
    EXPECT_LT(metrics.at("mismatch_replay_off"), 0.5) << variant;
  }
}

TEST(RouterReplayWorkload, BytesPerTurnAreTheCodecsSizes) {
  const uint64_t ids_per_turn = kNewTokens * kLayers * kTopK;
  double full = 0;  // turn t sends rows [0, (t + 1) * new_tokens) as base64 of int32
  for (uint64_t t = 0; t < kTurns; ++t) full += 4.0 * ((4 * (t + 1) * ids_per_turn + 2) / 3);
  const auto full_metrics = run_variant("base");
  EXPECT_EQ(full_metrics.at("bytes_per_turn"), full / kTurns);
  EXPECT_EQ(full_metrics.at("total_bytes"), full * kSessions);
  const double delta = 40 + (ids_per_turn * 6 + 7) / 8 + 4;  // header, 6-bit ids, CRC32C
  const auto delta_metrics = run_variant("delta");
  EXPECT_EQ(delta_metrics.at("bytes_per_turn"), delta);
  EXPECT_EQ(delta_metrics.at("total_bytes"), delta * kTurns * kSessions);
}

}  // namespace
