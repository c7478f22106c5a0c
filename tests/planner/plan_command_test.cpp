// `dopant plan` exit codes and its --json output.
#include "plan_command.hpp"
#include "plan_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dopant::planner {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(PlanCommand, UsageErrorsReturnTwo) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(command_plan({}), 2);
  EXPECT_EQ(command_plan({"memroy", "x.toml"}), 2);
  EXPECT_EQ(command_plan({"memory"}), 2);
  EXPECT_EQ(command_plan({"memory", "a.toml", "b.toml"}), 2);
  EXPECT_EQ(command_plan({"memory", "a.toml", "--json"}), 2);
  EXPECT_EQ(command_plan({"memory", "a.toml", "--csv"}), 2);
  const std::string messages = testing::internal::GetCapturedStderr();
  EXPECT_NE(messages.find("unknown subcommand `memroy`"), std::string::npos) << messages;
}

TEST(PlanCommand, HelpReturnsZero) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(command_plan({"--help"}), 0);
  EXPECT_EQ(command_plan({"memory", "--help"}), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("usage: dopant plan memory FILE"), std::string::npos);
}

TEST(PlanCommand, BadInputReturnsOne) {
  EXPECT_EQ(command_plan({"memory", "/nonexistent/plan.toml"}), 1);
  const auto path = std::filesystem::temp_directory_path() / "dopant_plan_bad.toml";
  std::ofstream(path) << test::small_plan_with("gpus = 8", "gpus = 7");
  testing::internal::CaptureStderr();
  EXPECT_EQ(command_plan({"memory", path.string()}), 1);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find(path.string() + ":9:1: `parallel.gpus` = 7"), std::string::npos) << message;
  std::filesystem::remove(path);
}

TEST(PlanCommand, PrintsTheTableAndWritesJson) {
  const auto json = std::filesystem::temp_directory_path() / "dopant_plan_kimi.json";
  testing::internal::CaptureStdout();
  EXPECT_EQ(command_plan({"memory", test::example_path("kimi-k2-64xh200.toml"), "--json", json.string()}), 0);
  const std::string table = testing::internal::GetCapturedStdout();
  for (const char* row : {"weights", "grads", "master", "moments", "activations", "staging", "total"}) {
    EXPECT_NE(table.find(std::string("\n  ") + row + " "), std::string::npos) << row << "\n" << table;
  }
  const std::string text = read_file(json);
  EXPECT_NE(text.find("\"total\": 1026408209408"), std::string::npos) << text;
  EXPECT_NE(text.find("\"chunk_bytes\": 268435456"), std::string::npos) << text;
  EXPECT_NE(text.find("\"staging\": 536870912"), std::string::npos) << text;
  std::filesystem::remove(json);
}

TEST(PlanCommand, UnwritableJsonReturnsOne) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(
      command_plan({"memory", test::example_path("llama-7b-8gpu.toml"), "--json", "/nonexistent/x.json"}), 1);
  testing::internal::GetCapturedStdout();
}

}  // namespace
}  // namespace dopant::planner
