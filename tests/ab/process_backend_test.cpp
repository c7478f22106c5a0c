// The fresh-process backend against a fake dopant binary: the arguments it passes, one
// process per run in the interleaved order, a run that fails with a reported error taken as
// a result (and a session that goes on past it), a crash and a run past --timeout (killed
// promptly) as failed runs naming the signal or the timeout, and clear fatal failures for
// any other non-zero exit and unreadable output.
#include "session.hpp"
#include <dopant/support/json_value.hpp>
#include "reports.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>

namespace dopant::ab {
namespace {

namespace fs = std::filesystem;

class ProcessBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::path(::testing::TempDir()) / ("dopant-ab-process-" + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    config_ = (folder_ / "run.toml").string();
    std::ofstream(config_) << "# not read by the fake\n";
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string failure_of(const std::string& variant, double timeout = 0) {
    ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, timeout);
    try {
      backend.run(variant);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  fs::path folder_;
  std::string config_;
};

TEST_F(ProcessBackendTest, PassesArgumentsAndReadsTheResult) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {"/plugins/one", "/plugins/two"}, config_, 10);
  const RunOutput output = backend.run("lion");
  const std::string expected =
      "--plugin-path /plugins/one --plugin-path /plugins/two run " + config_ + " --variant lion --repetitions 1 --json ";
  EXPECT_EQ(output.workload.rfind(expected, 0), 0u) << output.workload;
  EXPECT_FALSE(output.failure.has_value());
  ASSERT_EQ(output.metrics.size(), 2u);
  EXPECT_EQ(output.metrics[0].info.name, "value");
  EXPECT_EQ(output.metrics[0].info.unit, "s");
  EXPECT_FALSE(output.metrics[0].info.higher_is_better);
  EXPECT_EQ(output.metrics[0].value, 0.0);
  EXPECT_EQ(backend.run("lion").metrics[0].value, 1.0);  // a second process, counter advanced
}

TEST_F(ProcessBackendTest, SessionRunsOneProcessPerRunInScheduleOrder) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 10);
  AbSettings settings;
  settings.repetitions = 3;
  settings.warmups = 1;
  ProgressLine quiet(false);
  const AbSamples samples = collect_samples(backend, config_, {"base", "other"}, settings, quiet);
  ASSERT_EQ(samples.runs.size(), 8u);
  EXPECT_TRUE(samples.runs[0].warmup);
  // Counter values in execution order: A0 B1 | B2 A3 A4 B5 B6 A7 (warm-ups dropped).
  EXPECT_EQ(samples.values.at("base").at("value"), (std::vector<double>{3, 4, 7}));
  EXPECT_EQ(samples.values.at("other").at("value"), (std::vector<double>{2, 5, 6}));
  EXPECT_EQ(samples.runs[2].variant, "other");
  EXPECT_EQ(samples.runs[3].variant, "base");
}

TEST_F(ProcessBackendTest, ReportsExitStatusAndStderr) {
  const std::string failure = failure_of("fail");
  EXPECT_NE(failure.find("exited with status 3"), std::string::npos) << failure;
  EXPECT_NE(failure.find("boom in variant fail"), std::string::npos) << failure;
}

TEST_F(ProcessBackendTest, ReturnsAReportedFailureWithTheMetricsBeforeIt) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 10);
  const RunOutput output = backend.run("oom");
  ASSERT_TRUE(output.failure.has_value());
  EXPECT_EQ(output.failure->code, "out of memory");
  EXPECT_EQ(output.failure->message, "fake dopant: requested 4096 bytes (run 0)");
  ASSERT_EQ(output.metrics.size(), 1u);
  EXPECT_EQ(output.metrics[0].info.name, "value");
}

TEST_F(ProcessBackendTest, StatusOneWithoutAReportedErrorStaysFatal) {
  const std::string no_result = failure_of("status1");
  EXPECT_NE(no_result.find("exited with status 1"), std::string::npos) << no_result;
  EXPECT_NE(no_result.find("refused before running"), std::string::npos) << no_result;
  const std::string no_error = failure_of("status1-no-error");
  EXPECT_NE(no_error.find("exited with status 1"), std::string::npos) << no_error;
  const std::string error_but_success = failure_of("error-status0");
  EXPECT_NE(error_but_success.find("names an error but the run exited with status 0"), std::string::npos)
      << error_but_success;
}

TEST_F(ProcessBackendTest, ACrashIsAFailedRunNamingTheSignal) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 10);
  const RunOutput output = backend.run("segfault");
  ASSERT_TRUE(output.failure.has_value());
  EXPECT_EQ(output.failure->code, kCrashedCode);
  EXPECT_EQ(output.failure->signal, SIGSEGV);
  EXPECT_NE(output.failure->message.find("killed by signal 11 (SIGSEGV"), std::string::npos) << output.failure->message;
  EXPECT_NE(output.failure->message.find("fake dopant: about to segfault"), std::string::npos)
      << output.failure->message;
  EXPECT_TRUE(output.metrics.empty());
  EXPECT_EQ(backend.run("crash").failure->signal, SIGABRT);
}

TEST_F(ProcessBackendTest, GarbledOutputStaysFatal) {
  EXPECT_NE(failure_of("garbled").find("reading the output of `dopant run`"), std::string::npos);
}

TEST_F(ProcessBackendTest, ARunPastTheTimeoutIsKilledPromptlyAndIsAFailedRun) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 0.5);
  const auto start = std::chrono::steady_clock::now();
  const RunOutput output = backend.run("hang");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(output.failure.has_value());
  EXPECT_EQ(output.failure->code, kTimedOutCode);
  EXPECT_EQ(output.failure->signal, 0);
  EXPECT_NE(output.failure->message.find("timed out after 0.5 s and was killed"), std::string::npos)
      << output.failure->message;
  EXPECT_LT(seconds, 10.0);
}

TEST_F(ProcessBackendTest, SessionFailureNamesTheRun) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 10);
  AbSettings settings;
  settings.repetitions = 2;
  settings.warmups = 0;
  ProgressLine quiet(false);
  try {
    collect_samples(backend, config_, {"base", "fail"}, settings, quiet);
    FAIL() << "expected a failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("run 2/4 (fail, repetition 1) failed"), std::string::npos) << e.what();
  }
}

TEST_F(ProcessBackendTest, SessionGoesOnAfterReportedFailuresAndReportsThem) {
  ProcessBackend backend(DOPANT_FAKE_CLI, {}, config_, 10);
  AbResult result;
  result.settings.repetitions = 3;
  result.settings.warmups = 1;
  ProgressLine quiet(false);
  result.samples = collect_samples(backend, config_, {"base", "oom"}, result.settings, quiet);
  result.metrics = compare_all(result.samples, result.settings.compare);
  // Counter values in execution order: A0 B1 | B2 A3 A4 B5 B6 A7; the failed runs' values count.
  EXPECT_EQ(result.samples.values.at("oom").at("value"), (std::vector<double>{2, 5, 6}));
  EXPECT_FALSE(result.samples.values.at("oom").count("rate"));
  ASSERT_EQ(result.metrics.size(), 2u);
  EXPECT_EQ(result.metrics[0].info.name, "value");
  ASSERT_EQ(result.metrics[0].comparisons.size(), 1u);
  EXPECT_EQ(result.metrics[0].comparisons[0].candidate.n, 3u);
  EXPECT_EQ(result.metrics[1].info.name, "rate");
  EXPECT_TRUE(result.metrics[1].comparisons.empty());
  ASSERT_EQ(result.metrics[1].not_compared.size(), 1u);
  EXPECT_EQ(result.metrics[1].not_compared[0].base.n, 3u);
  EXPECT_EQ(result.metrics[1].not_compared[0].candidate.n, 0u);

  const std::string table = render_table(result);
  EXPECT_NE(table.find("oom: failed 3/3 runs (+1 failed warm-up): out of memory: fake dopant: requested 4096 bytes (run 1)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("base: failed"), std::string::npos) << table;
  EXPECT_NE(table.find("not compared"), std::string::npos) << table;
  const JsonValue json = parse_json(render_json(result));
  EXPECT_EQ(json.at("failures").at("oom").at("count").number(), 3);  // the 3 repetitions
  EXPECT_EQ(json.at("failures").at("oom").at("total").number(), 3);
  EXPECT_EQ(json.at("failures").at("oom").at("failed_warmups").number(), 1);
  EXPECT_EQ(json.at("failures").at("base").at("count").number(), 0);
}

}  // namespace
}  // namespace dopant::ab
