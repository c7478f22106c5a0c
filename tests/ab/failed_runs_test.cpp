// What failed runs leave behind: the per-configuration summary (count out of the measured
// runs, failed warm-ups apart, the first message of each distinct code, every crash and
// timeout with its repetition), and comparisons of
// sides that failed runs left short: a side with a single value is compared without a
// crash and never gets a verdict other than "no change"; a side without values makes the
// pair "not compared"; a metric neither side has is left out.
#include "session.hpp"
#include "reports.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>

namespace dopant::ab {
namespace {

AbSamples samples_with_failures() {
  AbSamples samples;
  samples.variants = {"base", "offload", "other"};
  const RunFailure oom{"out of memory", "requested 768 MiB"};
  samples.runs = {{"base", true, 0, oom},
                  {"offload", true, 0, std::nullopt},
                  {"other", true, 0, std::nullopt},
                  {"other", false, 0, RunFailure{"invalid argument", "bad chunk"}},
                  {"offload", false, 0, std::nullopt},
                  {"base", false, 0, RunFailure{"out of memory", "requested 769 MiB"}},
                  {"base", false, 1, RunFailure{"invalid argument", "bad limit"}}};
  return samples;
}

TEST(FailedRuns, CountsMeasuredRunsApartFromWarmUpsAndKeepsTheFirstMessageOfEachCode) {
  const AbSamples samples = samples_with_failures();
  const FailureSummary base = summarize_failures(samples, "base");
  EXPECT_EQ(base.failed, 2u);  // the failed warm-up is not one of the 2 repetitions
  EXPECT_EQ(base.runs, 2u);
  EXPECT_EQ(base.failed_warmups, 1u);
  ASSERT_EQ(base.first_of_each_code.size(), 2u);
  EXPECT_EQ(base.first_of_each_code[0].code, "out of memory");
  EXPECT_EQ(base.first_of_each_code[0].message, "requested 768 MiB");
  EXPECT_EQ(base.first_of_each_code[1].code, "invalid argument");
  EXPECT_EQ(failure_text(base),
            "failed 2/2 runs (+1 failed warm-up): out of memory: requested 768 MiB; invalid argument: bad limit");

  const FailureSummary offload = summarize_failures(samples, "offload");
  EXPECT_EQ(offload.failed, 0u);
  EXPECT_EQ(offload.runs, 1u);
  EXPECT_EQ(offload.failed_warmups, 0u);
  EXPECT_TRUE(offload.first_of_each_code.empty());
}

TEST(FailedRuns, ListsEveryCrashAndTimeoutWithItsRepetition) {
  AbSamples samples;
  samples.variants = {"base", "broken"};
  const RunFailure segfault{kCrashedCode, "was killed by signal 11", SIGSEGV};
  const RunFailure late{kTimedOutCode, "timed out after 1 s and was killed"};
  samples.runs = {{"broken", true, 0, late},       {"base", false, 0, std::nullopt}, {"broken", false, 0, segfault},
                  {"broken", false, 1, segfault}, {"base", false, 1, std::nullopt}, {"broken", false, 2, late}};
  const FailureSummary broken = summarize_failures(samples, "broken");
  EXPECT_EQ(broken.failed, 3u);
  EXPECT_EQ(broken.runs, 3u);
  EXPECT_EQ(broken.failed_warmups, 1u);
  EXPECT_TRUE(broken.first_of_each_code.empty());
  ASSERT_EQ(broken.unreported.size(), 4u);
  EXPECT_EQ(failure_text(broken),
            "failed 3/3 runs (+1 failed warm-up): timed out in warm-up 1; crashed in repetition 1 (SIGSEGV, signal 11); "
            "crashed in repetition 2 (SIGSEGV, signal 11); timed out in repetition 3");
}

TEST(FailedRuns, ListsOnlyConfigurationsThatFailedInTheirOrder) {
  const std::vector<FailureSummary> failed = configurations_with_failures(samples_with_failures());
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].variant, "base");
  EXPECT_EQ(failed[1].variant, "other");
  EXPECT_EQ(failure_text(failed[1]), "failed 1/1 runs: invalid argument: bad chunk");
}

TEST(FailedRuns, SingleValueSidesAreComparedWithoutAVerdict) {
  AbSamples samples;
  samples.variants = {"base", "offload"};
  samples.metrics = {{"peak_device_bytes", "B", false}, {"step_time", "s", false}, {"params_per_second", "1/s", true}};
  samples.values["base"] = {{"peak_device_bytes", {800}}, {"params_per_second", {5, 5, 5}}};
  samples.values["offload"] = {{"peak_device_bytes", {200}}, {"step_time", {0.5, 0.6}}};
  const std::vector<MetricResult> results = compare_all(samples, CompareSettings{});
  ASSERT_EQ(results.size(), 3u);

  ASSERT_EQ(results[0].comparisons.size(), 1u);
  const Comparison& peak = results[0].comparisons[0];
  EXPECT_EQ(peak.base.n, 1u);
  EXPECT_EQ(peak.base.mad, 0);
  EXPECT_EQ(peak.ratio.ratio, 0.25);
  EXPECT_EQ(peak.ratio.low, 0.25);
  EXPECT_EQ(peak.ratio.high, 0.25);
  EXPECT_TRUE(std::isfinite(peak.test.p));
  EXPECT_EQ(peak.verdict, Verdict::no_change);

  EXPECT_TRUE(results[1].comparisons.empty());
  ASSERT_EQ(results[1].not_compared.size(), 1u);
  EXPECT_EQ(results[1].not_compared[0].base.n, 0u);
  EXPECT_TRUE(std::isnan(results[1].not_compared[0].base.median));
  EXPECT_EQ(results[1].not_compared[0].candidate.n, 2u);
  EXPECT_EQ(results[1].not_compared[0].candidate.median, 0.55);
  ASSERT_EQ(results[2].not_compared.size(), 1u);
  EXPECT_EQ(results[2].not_compared[0].candidate.n, 0u);
}

TEST(FailedRuns, TwoValuesASideCanStillChangeTheVerdict) {
  CompareSettings settings;
  settings.rule.alpha = 0.5;  // two values a side cannot reach p < 0.05; let the rule speak
  const Comparison one_value = compare_samples("offload", {800}, {200, 201}, false, settings);
  EXPECT_EQ(one_value.verdict, Verdict::no_change);
  const Comparison two_values = compare_samples("offload", {800, 801}, {200, 201}, false, settings);
  EXPECT_LT(two_values.test.p, settings.rule.alpha);
  EXPECT_EQ(two_values.verdict, Verdict::improved);
}

// A plugin's failure message with ESC and a newline (clear-screen, a fake table row) stays
// one escaped line in the table, the Markdown and the SVG, which stays well-formed XML.
TEST(FailedRuns, AMessageWithControlCharactersCannotBreakAReport) {
  AbResult result;
  result.samples = samples_with_failures();
  result.samples.runs[3].failure = RunFailure{"invalid argument", "bad\x1b[2J\n| fake | row |"};
  result.metrics = compare_all(result.samples, result.settings.compare);
  for (const std::string& report : {render_table(result), render_markdown(result), render_svg(result)}) {
    EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
    EXPECT_EQ(report.find("\n| fake"), std::string::npos) << report;
    EXPECT_NE(report.find("bad\\x1b[2J\\n"), std::string::npos) << report;
  }
}

TEST(FailedRuns, ANoteWrapsAtWordsWithinTheWidth) {
  const std::string text = "base: failed 3/3 runs: out of memory: requested 805306368 bytes, ×2 over the limit";
  const std::vector<std::string> lines = wrap_words(text, 24);
  ASSERT_GT(lines.size(), 2u);
  std::string joined;
  for (const std::string& line : lines) {
    EXPECT_LE(display_width(line), 24u) << line;
    joined += (joined.empty() ? "" : " ") + line;
  }
  EXPECT_EQ(joined, text);
  EXPECT_EQ(wrap_words("a-word-longer-than-the-width", 4), std::vector<std::string>{"a-word-longer-than-the-width"});
  EXPECT_TRUE(wrap_words("", 10).empty());
}

}  // namespace
}  // namespace dopant::ab
