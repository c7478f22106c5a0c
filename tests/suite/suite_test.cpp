// The built-in suite: `{scale:N}` placeholders scale and round, and `dopant` with no
// arguments, at a tiny scale, prints one row per kind and exits 0; entries whose plugins
// are built are measured (the router's bytes per turn checked against the codecs' sizes,
// the checkpoint converters' peak RSS against the checkpoint's size), the others listed as
// skipped; `--only KIND` runs one row.
#include "suite_entries.hpp"

#include <gtest/gtest.h>

#include "command_output.hpp"

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace dopant::suite {
namespace {

using dopant::testing_support::command_output;

TEST(SuiteEntries, ScalePlaceholdersAreReplaced) {
  EXPECT_EQ(scaled_run_file("params = {scale:16000000}\nsteps = {scale:3}", 0.01), "params = 160000\nsteps = 1");
  EXPECT_EQ(scaled_run_file("no placeholder", 2.0), "no placeholder");
  EXPECT_THROW(scaled_run_file("params = {scale:12", 1.0), std::invalid_argument);
}

TEST(SuiteEntries, OnlyNamesAKindOfTheSuite) {
  const auto [out, status] = command_output(std::string("'") + DOPANT_CLI + "' suite --only nosuch 2>&1");
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("--only: no kind `nosuch` in the suite"), std::string::npos) << out;
}

TEST(SuiteEntries, EveryKindHasOneEntry) {
  std::vector<std::string> kinds;
  for (const SuiteEntry& entry : suite_entries()) kinds.push_back(entry.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"optimizer", "router", "sandbox", "checkpoint", "parallel"}));
}

// The table row of `kind`: the last line that starts with it.
std::string table_row(const std::string& out, const std::string& kind) {
  std::istringstream lines(out);
  std::string line, row;
  while (std::getline(lines, line)) {
    if (line.rfind(kind + " ", 0) == 0) row = line;
  }
  return row;
}

TEST(Suite, NoArgumentsPrintsTheTableAndExitsZero) {
  const auto [out, status] = command_output(std::string("DOPANT_SUITE_SCALE=0.005 '") + DOPANT_CLI + "' 2>&1");
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("KIND"), std::string::npos) << out;
  EXPECT_NE(out.find("VERDICT"), std::string::npos) << out;
  // gather vs stream on a generated 16 MB checkpoint (not scaled). gather holds every
  // tensor at once, so its conversion's peak RSS is at least the checkpoint; stream holds
  // one 2 MiB task (one worker), so its peak, the process's own memory included, stays
  // below the checkpoint's size, and the verdict is "improved". The mutant task_size =
  // "64MiB" in suite_entries.cpp (tried: stream then holds the whole checkpoint as one
  // task, 22 MB against gather's 37 MB) fails here.
  const std::string checkpoint = table_row(out, "checkpoint");
  std::istringstream words(checkpoint);
  std::string kind, metric, gather_unit, stream_unit;
  double gather = 0, stream = 0;
  words >> kind >> metric >> gather >> gather_unit >> stream >> stream_unit;
  EXPECT_EQ(metric, "peak_rss_bytes") << out;
  EXPECT_GE(gather, 16e6) << checkpoint;           // the whole checkpoint in memory
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer a process's RSS is mostly the sanitizer's: shadow memory and the
  // quarantine that keeps freed blocks resident (stream measured 95 MB there), so only the
  // comparison below holds; the absolute bound is the normal build's.
  EXPECT_LT(stream, gather) << checkpoint;
#else
  EXPECT_LT(stream, 16e6) << checkpoint;           // one task of it, and the process
#endif
  EXPECT_NE(checkpoint.find("improved"), std::string::npos) << checkpoint;
  const std::string sandbox = table_row(out, "sandbox");
  if (DOPANT_SUITE_SANDBOX_MEASURED) {  // spawn against pbox on the 1 MiB round trip
    EXPECT_NE(sandbox.find("roundtrip_1mib_p50"), std::string::npos) << out;
    EXPECT_EQ(sandbox.find("skipped"), std::string::npos) << out;
    EXPECT_EQ(sandbox.find("failed"), std::string::npos) << out;
  } else {
    EXPECT_NE(sandbox.find("skipped"), std::string::npos) << out;
  }
  // Under mpirun -np 2; mpirun is searched on PATH, as CMake found it.
  const std::string parallel = table_row(out, "parallel");
  if (DOPANT_SUITE_PARALLEL_MEASURED) {
    EXPECT_NE(parallel.find("bytes_per_token"), std::string::npos) << out;
    EXPECT_NE(parallel.find("improved"), std::string::npos) << out;
  } else {
    EXPECT_NE(parallel.find("skipped"), std::string::npos) << out;
  }
  // At this scale each of the 8 turns adds one token: 61 x 8 ids. replay-full sends every
  // row so far as base64 of int32, 4 * ceil(4 * ids / 3) characters; replay-delta the new
  // row packed, a 40-byte header, ceil(488 * 9 / 8) = 549 bytes and a 4-byte CRC.
  const std::string router = table_row(out, "router");
  if (DOPANT_SUITE_ROUTER_MEASURED) {
    double full = 0;
    for (int turn = 1; turn <= 8; ++turn) full += 4.0 * ((4 * turn * 488 + 2) / 3) / 8;
    const double expected = (40 + 549 + 4) / full;
    char ratio[48];
    std::snprintf(ratio, sizeof ratio, "%.4g [%.4g, %.4g]", expected, expected, expected);
    EXPECT_NE(router.find("bytes_per_turn"), std::string::npos) << out;
    EXPECT_NE(router.find(ratio), std::string::npos) << "expected " << ratio << " in\n" << router;
    EXPECT_NE(router.find("improved"), std::string::npos) << router;
  } else {
    EXPECT_NE(router.find("skipped"), std::string::npos) << out;
  }
  const std::string optimizer = table_row(out, "optimizer");
  if (DOPANT_SUITE_OPTIMIZER_MEASURED) {
    EXPECT_NE(optimizer.find("peak_device_bytes"), std::string::npos) << out;
    EXPECT_EQ(optimizer.find("skipped"), std::string::npos) << out;
    EXPECT_EQ(optimizer.find("failed"), std::string::npos) << out;
  } else {
    EXPECT_NE(optimizer.find("skipped"), std::string::npos) << out;
  }
}

// The headline: at half scale (8M fp32 parameters, 16 MiB chunks) the offload's device
// peak is params + grads + two chunks against params + grads + both moments, a ratio of
// (8 * 8e6 + 2 * 16 MiB) / (16 * 8e6) = 0.7621, and the verdict is "improved". The peak is
// the host's allocation count, so the ratio is exact, not a timing. The mutant chunk =
// "32MiB" in suite_entries.cpp (tried) fails here, as would an offload keeping a moment on
// the device.
TEST(Suite, TheOptimizerHeadlineIsTheOffloadsPeakRatio) {
  if (!DOPANT_SUITE_OPTIMIZER_MEASURED) GTEST_SKIP() << "the AdamW plugins are not built";
  // PATH empty: no mpirun, so the parallel row (checked above) is skipped and this test
  // times the optimizer row alone.
  const auto [out, status] =
      command_output(std::string("PATH= DOPANT_SUITE_SCALE=0.5 '") + DOPANT_CLI + "' suite --only optimizer 2>&1");
  ASSERT_EQ(status, 0) << out;
  const std::string optimizer = table_row(out, "optimizer");
  const double expected = (8 * 8e6 + 2 * 16.0 * (1 << 20)) / (16 * 8e6);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.4f [%.4f, %.4f]", expected, expected, expected);
  EXPECT_NE(optimizer.find(ratio), std::string::npos) << "expected " << ratio << " in\n" << optimizer;
  EXPECT_NE(optimizer.find("improved"), std::string::npos) << optimizer;
}

}  // namespace
}  // namespace dopant::suite
