// End to end with the real dopant binary and the c-sgd example plugin: an A/B of SGD
// without and with momentum on optimizer-step, through dopant::ab::command_ab in process and
// in fresh `dopant run` processes, and through `dopant ab` on the command line. Each
// checks that the JSON holds every metric of the workload, the samples and the order of
// runs, and that the SVG is well-formed. A variant whose workload fails is a result in both
// backends, and so are a crash and a run killed at --timeout (carried out by the fake
// dopant, and a crash once more by a real plugin that dies of SIGSEGV), named with the signal
// and the repetition in every report. The shipped examples run as their header comments say: SGD vs Lion,
// and adamw out of memory vs adamw-chunked-offload fitting under a device memory limit.
#include "ab_command.hpp"
#include <dopant/support/json_value.hpp>
#include "xml_well_formed.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace dopant::ab {
namespace {

namespace fs = std::filesystem;

const char* const kRunFile = R"([run]
workload = "optimizer-step"
repetitions = 1

[device]
kind = "cpu"

[workload]
params = 20000
tensors = 2
dtype = "fp32"
steps = 2
seed = 3

[optimizer]
plugin = "c-sgd"
lr = 0.01
momentum = 0.0

[variants.momentum.optimizer]
plugin = "c-sgd"
lr = 0.01
momentum = 0.9
)";

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

class AbEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::path(::testing::TempDir()) / ("dopant-ab-e2e-" + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    config_ = (folder_ / "sgd-momentum.toml").string();
    std::ofstream(config_) << kRunFile;
  }
  void TearDown() override { fs::remove_all(folder_); }

  void check_outputs(size_t repetitions, size_t warmups, const std::string& variant = "momentum") {
    const JsonValue json = parse_json(read_text(folder_ / "out.json"));
    EXPECT_EQ(json.at("workload").string(), "optimizer-step");
    ASSERT_EQ(json.at("variants").array().size(), 2u);
    EXPECT_EQ(json.at("variants").array()[1].string(), variant);
    EXPECT_EQ(json.at("order").array().size(), 2 * (repetitions + warmups));
    std::vector<std::string> names;
    for (const JsonValue& metric : json.at("metrics").array()) {
      names.push_back(metric.at("name").string());
      ASSERT_EQ(metric.at("comparisons").array().size(), 1u) << names.back();
      EXPECT_EQ(metric.at("comparisons").array()[0].at("candidate").at("n").number(), repetitions);
      EXPECT_EQ(json.at("samples").at(variant).at(names.back()).array().size(), repetitions);
    }
    for (const char* metric : {"step_time", "peak_device_bytes", "params_per_second"}) {
      EXPECT_NE(std::find(names.begin(), names.end(), metric), names.end()) << metric;
    }
    const std::string svg = read_text(folder_ / "out.svg");
    EXPECT_EQ(testing::xml_problem(svg), "");
    for (const std::string& name : names) EXPECT_NE(svg.find(name), std::string::npos) << name;
  }

  std::vector<std::string> arguments(const std::string& repetitions) const {
    return {config_,  "--repetitions", repetitions, "--warmup", "1", "--json", (folder_ / "out.json").string(),
            "--svg", (folder_ / "out.svg").string()};
  }

  fs::path folder_;
  std::string config_;
};

TEST_F(AbEndToEnd, InProcess) {
  std::vector<std::string> args = arguments("3");
  args.push_back("--in-process");
  EXPECT_EQ(command_ab(args, "", {DOPANT_PLUGIN_BUILD_DIR}), 0);
  check_outputs(3, 1);
}

TEST_F(AbEndToEnd, FreshProcesses) {
  EXPECT_EQ(command_ab(arguments("3"), DOPANT_CLI, {DOPANT_PLUGIN_BUILD_DIR}), 0);
  check_outputs(3, 1);
}

TEST_F(AbEndToEnd, AFailingVariantIsAResult) {
  std::ofstream(config_, std::ios::app) << "\n[variants.broken.workload]\noutput = \""
                                        << (folder_ / "no-such-folder" / "params.bin").string() << "\"\n";
  for (const bool in_process : {true, false}) {
    std::vector<std::string> args = arguments("2");
    if (in_process) args.push_back("--in-process");
    EXPECT_EQ(command_ab(args, DOPANT_CLI, {DOPANT_PLUGIN_BUILD_DIR}), 0);
    const JsonValue failures = parse_json(read_text(folder_ / "out.json")).at("failures");
    EXPECT_EQ(failures.at("base").at("count").number(), 0);
    EXPECT_EQ(failures.at("momentum").at("count").number(), 0);
    const JsonValue& broken = failures.at("broken");
    EXPECT_EQ(broken.at("count").number(), 2) << "in process: " << in_process;
    EXPECT_EQ(broken.at("total").number(), 2);  // the repetitions; the warm-up is counted apart
    EXPECT_EQ(broken.at("failed_warmups").number(), 1);
    ASSERT_EQ(broken.at("messages").array().size(), 1u);
    const std::string message = broken.at("messages").array()[0].at("message").string();
    EXPECT_NE(message.find("no-such-folder"), std::string::npos) << message;
    EXPECT_EQ(testing::xml_problem(read_text(folder_ / "out.svg")), "");
    fs::remove(folder_ / "out.json");
    fs::remove(folder_ / "out.svg");
  }
}

// The run file is validated with the real plugins; each run is carried out by the fake
// dopant, which dies of SIGSEGV in variant "segfault" and hangs in variant "hang".
TEST_F(AbEndToEnd, CrashedAndTimedOutVariantsAreResultsInEveryReport) {
  const std::string config = (folder_ / "broken.toml").string();
  std::ofstream(config) << kRunFile << "\n[variants.segfault.optimizer]\nplugin = \"c-sgd\"\n"
                        << "\n[variants.hang.optimizer]\nplugin = \"c-sgd\"\n";
  const fs::path json_path = folder_ / "out.json";
  const fs::path svg_path = folder_ / "out.svg";
  const fs::path csv_path = folder_ / "out.csv";
  const fs::path markdown_path = folder_ / "out.md";
  ::testing::internal::CaptureStdout();
  const int status = command_ab({config, "--repetitions", "2", "--warmup", "0", "--timeout", "0.5", "--json",
                                 json_path.string(), "--svg", svg_path.string(), "--csv", csv_path.string(),
                                 "--markdown", markdown_path.string()},
                                DOPANT_FAKE_CLI, {DOPANT_PLUGIN_BUILD_DIR});
  const std::string table = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);  // documented: the session completed, whatever its runs did

  const JsonValue json = parse_json(read_text(json_path));
  const JsonValue& crashed = json.at("failures").at("segfault");
  EXPECT_EQ(crashed.at("count").number(), 2);
  EXPECT_EQ(crashed.at("total").number(), 2);
  ASSERT_EQ(crashed.at("unreported").array().size(), 2u);
  for (size_t repetition = 0; repetition < 2; ++repetition) {
    const JsonValue& run = crashed.at("unreported").array()[repetition];
    EXPECT_EQ(run.at("code").string(), "crashed");
    EXPECT_EQ(run.at("signal").number(), SIGSEGV);
    EXPECT_EQ(run.at("signal_name").string(), "SIGSEGV");
    EXPECT_EQ(run.at("repetition").number(), repetition);
    EXPECT_FALSE(run.at("warmup").boolean());
    EXPECT_NE(run.at("message").string().find("about to segfault"), std::string::npos) << run.at("message").string();
  }
  const JsonValue& timed_out = json.at("failures").at("hang");
  EXPECT_EQ(timed_out.at("count").number(), 2);
  ASSERT_EQ(timed_out.at("unreported").array().size(), 2u);
  EXPECT_EQ(timed_out.at("unreported").array()[1].at("code").string(), "timed out");
  EXPECT_EQ(timed_out.at("unreported").array()[1].at("repetition").number(), 1);
  EXPECT_FALSE(timed_out.at("unreported").array()[1].has("signal"));
  EXPECT_EQ(json.at("failures").at("base").at("count").number(), 0);
  bool order_names_the_signal = false;
  for (const JsonValue& run : json.at("order").array()) {
    if (run.at("variant").string() == "segfault") order_names_the_signal = run.at("signal_name").string() == "SIGSEGV";
  }
  EXPECT_TRUE(order_names_the_signal);

  const std::string crash_line =
      "segfault: failed 2/2 runs: crashed in repetition 1 (SIGSEGV, signal 11); crashed in repetition 2 (SIGSEGV, "
      "signal 11)";
  const std::string timeout_line = "hang: failed 2/2 runs: timed out in repetition 1; timed out in repetition 2";
  EXPECT_NE(table.find(crash_line), std::string::npos) << table;
  EXPECT_NE(table.find(timeout_line), std::string::npos) << table;
  const std::string markdown = read_text(markdown_path);
  EXPECT_NE(markdown.find("- " + crash_line), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" segfault(crashed)"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" hang(timed out)"), std::string::npos) << markdown;
  EXPECT_NE(read_text(csv_path).find("\"" + crash_line.substr(std::string("segfault: ").size()) + "\""),
            std::string::npos)
      << read_text(csv_path);
  const std::string svg = read_text(svg_path);
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("crashed in repetition 1 (SIGSEGV, signal 11)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("timed out in repetition 2"), std::string::npos) << svg;
}

// The same, with nothing faked: the real dopant runs a real plugin whose step dies of SIGSEGV
// in variant "segfault". The base and the other variant are measured; the crashed variant is
// a result with its signal and repetitions, and the JSON and SVG are both written.
TEST_F(AbEndToEnd, APluginThatSegfaultsIsACrashedVariantWithReports) {
  std::ofstream(config_, std::ios::app) << "\n[variants.segfault.optimizer]\nplugin = \"test-segfault\"\nlr = 0.01\n";
  EXPECT_EQ(command_ab({config_, "--repetitions", "2", "--warmup", "0", "--json", (folder_ / "out.json").string(),
                        "--svg", (folder_ / "out.svg").string()},
                       DOPANT_CLI, {DOPANT_PLUGIN_BUILD_DIR, DOPANT_CRASH_PLUGIN_DIR}),
            0);
  const JsonValue json = parse_json(read_text(folder_ / "out.json"));
  const JsonValue& crashed = json.at("failures").at("segfault");
  EXPECT_EQ(crashed.at("count").number(), 2);
  ASSERT_EQ(crashed.at("unreported").array().size(), 2u);
  for (size_t repetition = 0; repetition < 2; ++repetition) {
    const JsonValue& run = crashed.at("unreported").array()[repetition];
    EXPECT_EQ(run.at("code").string(), "crashed");
    EXPECT_EQ(run.at("signal").number(), SIGSEGV);
    EXPECT_EQ(run.at("repetition").number(), repetition);
  }
  EXPECT_EQ(json.at("failures").at("base").at("count").number(), 0);
  EXPECT_EQ(json.at("failures").at("momentum").at("count").number(), 0);
  EXPECT_EQ(json.at("samples").at("momentum").at("step_time").array().size(), 2u);
  const std::string svg = read_text(folder_ / "out.svg");
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("crashed in repetition 1 (SIGSEGV, signal 11)"), std::string::npos) << svg;
}

TEST_F(AbEndToEnd, CommandLine) {
  const fs::path log = folder_ / "cli.log";
  const std::string command = std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_PLUGIN_BUILD_DIR +
                              "' ab '" + config_ + "' --repetitions 3 --json '" + (folder_ / "out.json").string() +
                              "' --svg '" + (folder_ / "out.svg").string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  const std::string printed = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << printed;
  EXPECT_NE(printed.find("step_time"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("\r"), std::string::npos) << "progress line printed to a non-terminal";
  check_outputs(3, 1);
}

// The shipped example, as its header comment says to run it, with Lion built from
// examples/out-of-tree (by tests/sdk) on the plugin path.
TEST_F(AbEndToEnd, ShippedSgdVsLionExample) {
  const fs::path log = folder_ / "cli.log";
  const std::string command = std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_LION_DIR + "' ab '" +
                              DOPANT_EXAMPLES_DIR + "/ab/optimizer-sgd-vs-lion.toml' --repetitions 2 --json '" +
                              (folder_ / "out.json").string() + "' --svg '" + (folder_ / "out.svg").string() +
                              "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  const std::string printed = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << printed;
  check_outputs(2, 1, "lion");
}

// Under its [device] memory_limit, the base (adamw) runs out of memory on every run and
// the variant (adamw-chunked-offload) fits: the session completes, the base's failures are
// listed, peak_device_bytes (reported by both sides) is compared, and the metrics only the
// variant reports are listed as not compared.
TEST_F(AbEndToEnd, ShippedOutOfMemoryVsOffloadExample) {
  const fs::path log = folder_ / "cli.log";
  const std::string command = std::string("'") + DOPANT_CLI + "' --plugin-path '" + DOPANT_PLUGIN_BUILD_DIR + "' ab '" +
                              DOPANT_EXAMPLES_DIR + "/ab/optimizer-offload.toml' --repetitions 2 --json '" +
                              (folder_ / "out.json").string() + "' --svg '" + (folder_ / "out.svg").string() +
                              "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  const std::string printed = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << printed;
  EXPECT_NE(printed.find("\n  base: failed 2/2 runs (+1 failed warm-up): out of memory: "), std::string::npos)
      << printed;

  const JsonValue json = parse_json(read_text(folder_ / "out.json"));
  const JsonValue& base_failures = json.at("failures").at("base");
  EXPECT_EQ(base_failures.at("count").number(), 2);
  EXPECT_EQ(base_failures.at("failed_warmups").number(), 1);
  ASSERT_EQ(base_failures.at("messages").array().size(), 1u);
  EXPECT_EQ(base_failures.at("messages").array()[0].at("code").string(), "out of memory");
  EXPECT_EQ(json.at("failures").at("offload").at("count").number(), 0);
  std::vector<std::string> not_compared;
  bool peak_compared = false;
  for (const JsonValue& metric : json.at("metrics").array()) {
    const std::string name = metric.at("name").string();
    if (name == "peak_device_bytes") {
      ASSERT_EQ(metric.at("comparisons").array().size(), 1u);
      const JsonValue& comparison = metric.at("comparisons").array()[0];
      EXPECT_EQ(comparison.at("base").at("n").number(), 2);
      EXPECT_EQ(comparison.at("candidate").at("n").number(), 2);
      EXPECT_GT(comparison.at("ratio").number(), 0);
      EXPECT_LT(comparison.at("ratio").number(), 0.5);
      peak_compared = true;
    }
    for (const JsonValue& pair : metric.at("not_compared").array()) {
      EXPECT_EQ(pair.at("base").at("n").number(), 0) << name;
      EXPECT_EQ(pair.at("candidate").at("n").number(), 2) << name;
      not_compared.push_back(name);
    }
  }
  EXPECT_TRUE(peak_compared);
  std::sort(not_compared.begin(), not_compared.end());
  EXPECT_EQ(not_compared, (std::vector<std::string>{"params_per_second", "step_time"}));

  const std::string svg = read_text(folder_ / "out.svg");
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("base: failed 2/2 runs (+1 failed warm-up): out of memory"), std::string::npos);
}

}  // namespace
}  // namespace dopant::ab
