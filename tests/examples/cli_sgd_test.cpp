// End to end through the dopant CLI: `dopant run FILE --json OUT` runs optimizer-step with
// the pure-C c-sgd plugin and writes the final parameters; a plain C++ SGD over the same
// synthetic data (synthetic.hpp) must reproduce them element by element. Also checks that
// the shipped examples/configs/optimizer-sgd.toml validates against the built plugins.
#include <dopant/runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sgd_reference.hpp"
#include "synthetic.hpp"
#include "workloads.hpp"

namespace dopant::tests {
namespace {

namespace fs = std::filesystem;
using workloads::gradient_stream;
using workloads::parameter_stream;
using workloads::split_sizes;
using workloads::synthetic_uniform;

struct Case {
  const char* name;
  SgdSettings sgd;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

// Sizes chosen so the split is uneven and the last tensor spans several parallel chunks.
constexpr uint64_t kParams = 100003;
constexpr uint32_t kTensors = 5;
constexpr uint32_t kSteps = 4;
constexpr uint64_t kSeed = 7;

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::string run_file_text(const Case& c, const fs::path& output) {
  std::ostringstream text;
  text.precision(17);
  text << "[run]\nworkload = \"optimizer-step\"\nrepetitions = 2\n\n"
       << "[device]\nkind = \"cpu\"\n\n"
       << "[workload]\nparams = " << kParams << "\ntensors = " << kTensors
       << "\ndtype = \"fp32\"\nsteps = " << kSteps << "\nseed = " << kSeed << "\noutput = \""
       << output.string() << "\"\n\n"
       << "[optimizer]\nplugin = \"c-sgd\"\nlr = " << c.sgd.lr << "\nmomentum = " << c.sgd.momentum
       << "\ndampening = " << c.sgd.dampening << "\nweight_decay = " << c.sgd.weight_decay
       << "\nnesterov = " << (c.sgd.nesterov ? "true" : "false") << "\n";
  return text.str();
}

// The parameters after kSteps steps, recomputed tensor by tensor.
std::vector<float> reference_params(const SgdSettings& settings) {
  std::vector<float> all;
  uint64_t offset = 0;
  for (const uint64_t size : split_sizes(kParams, kTensors)) {
    std::vector<float> params(size), grads(size);
    for (uint64_t i = 0; i < size; ++i)
      params[i] = synthetic_uniform(kSeed, parameter_stream(), offset + i);
    SgdReference sgd(settings);
    for (uint32_t step = 0; step < kSteps; ++step) {
      for (uint64_t i = 0; i < size; ++i)
        grads[i] = synthetic_uniform(kSeed, gradient_stream(step), offset + i);
      sgd.step(params, grads);
    }
    all.insert(all.end(), params.begin(), params.end());
    offset += size;
  }
  return all;
}

std::vector<float> decode_little_endian_fp32(const std::string& bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits = 0;
    for (size_t b = 0; b < 4; ++b)
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + b])) << (8 * b);
    std::memcpy(&values[i], &bits, 4);
  }
  return values;
}

class CliSgdTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    folder_ = fs::path(::testing::TempDir()) /
              (std::string("dopant-cli-sgd-") + GetParam().name + "-" + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST_P(CliSgdTest, CliRunMatchesPlainSgd) {
  const fs::path config = folder_ / "run.toml";
  const fs::path output = folder_ / "params.f32";
  const fs::path json = folder_ / "run.json";
  const fs::path log = folder_ / "cli.log";
  std::ofstream(config) << run_file_text(GetParam(), output);

  const std::string command = std::string("'") + DOPANT_CLI + "' run '" + config.string() +
                              "' --json '" + json.string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << command << "\n" << read_file(log);

  const std::string report = read_file(json);
  for (const char* metric : {"step_time", "peak_device_bytes", "params_per_second"})
    EXPECT_NE(report.find(metric), std::string::npos) << metric << " missing in\n" << report;

  const std::vector<float> got = decode_little_endian_fp32(read_file(output));
  const std::vector<float> want = reference_params(GetParam().sgd);
  ASSERT_EQ(got.size(), want.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double tolerance = 1e-6 * std::max(std::fabs(static_cast<double>(want[i])), 1e-30);
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= tolerance) && mismatches++ < 5)
      ADD_FAILURE() << "element " << i << ": plugin " << got[i] << ", reference " << want[i];
  }
  EXPECT_EQ(mismatches, 0u);
  // The parameters moved: a run that wrote the initial values would not match anyway, but
  // say so plainly when it happens.
  EXPECT_NE(got.front(), synthetic_uniform(kSeed, parameter_stream(), 0));
  EXPECT_FALSE(fs::exists(output.string() + ".tmp." + std::to_string(getpid())));
}

INSTANTIATE_TEST_SUITE_P(
    Settings, CliSgdTest,
    ::testing::Values(Case{"plain", {0.05, 0.0, 0.0, 0.0, false}},
                      Case{"momentum", {0.01, 0.9, 0.1, 0.01, false}},
                      Case{"nesterov", {0.02, 0.8, 0.0, 0.001, true}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(ExampleConfigs, OptimizerSgdValidates) {
  dpt_runtime_options options{};
  options.struct_size = DPT_RUNTIME_OPTIONS_SIZE_1_0;
  options.plugin_path = DOPANT_PLUGIN_BUILD_DIR;
  options.skip_default_paths = 1;
  options.log_level = DPT_LOG_WARN;
  dpt_runtime* runtime = nullptr;
  ASSERT_EQ(dpt_runtime_create(&options, &runtime), nullptr);
  dpt_error* error = workloads::declare_builtin(runtime);
  EXPECT_EQ(error, nullptr) << (error ? dpt_error_get_message(error) : "");
  dpt_error_destroy(error);

  dpt_run_config* config = nullptr;
  error = dpt_run_config_load(runtime, DOPANT_EXAMPLE_CONFIGS "/optimizer-sgd.toml", &config);
  EXPECT_EQ(error, nullptr) << (error ? dpt_error_get_message(error) : "");
  dpt_error_destroy(error);
  if (config != nullptr) {
    EXPECT_STREQ(dpt_run_config_workload(config), "optimizer-step");
    EXPECT_STREQ(dpt_run_config_slot_plugin(config, 0, "optimizer"), "c-sgd");
  }
  dpt_run_config_destroy(config);
  dpt_runtime_destroy(runtime);
}

}  // namespace
}  // namespace dopant::tests
