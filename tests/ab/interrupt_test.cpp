// SIGINT, SIGTERM or SIGHUP to `dopant ab` while a repetition runs: the child `dopant run`
// (its own process group) is killed, the dopant-ab-* temporary folder is removed, and
// `dopant ab` itself ends by that signal. Each test gives dopant its own TMPDIR, so the
// folder it makes is the only one there.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A repetition that runs for minutes: c-sgd over 4M parameters for 100,000 steps.
const char* const kSlowRun = R"([run]
workload = "optimizer-step"
repetitions = 2
[workload]
params = 4000000
tensors = 2
steps = 100000
[optimizer]
plugin = "c-sgd"
[variants.other.optimizer]
plugin = "c-sgd"
lr = 0.02
)";

// The pids whose parent is `parent`, from /proc.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent) {
      children.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return children;
}

// True while `pid` runs: it exists and is not a zombie (an orphan killed under a PID 1 that
// does not reap stays one).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z';
}

class AbInterrupt : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-interrupt-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    fs::create_directory(folder_ / "tmp");
    std::ofstream(folder_ / "slow.toml") << kSlowRun;
  }
  void TearDown() override { fs::remove_all(folder_); }

  fs::path folder_;
};

TEST_P(AbInterrupt, KillsTheChildGroupAndRemovesTheTemporaryFolder) {
  const int signal = GetParam();
  const std::string config = (folder_ / "slow.toml").string();
  const std::string tmpdir = "TMPDIR=" + (folder_ / "tmp").string();
  std::vector<std::string> words = {DOPANT_CLI, "--plugin-path", DOPANT_PLUGIN_BUILD_DIR, "ab", config,
                                    "--repetitions", "2", "--warmup", "0"};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = {tmpdir};
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::string(*variable).rfind("TMPDIR=", 0) != 0) environment.emplace_back(*variable);
  }
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t ab = 0;
  ASSERT_EQ(posix_spawn(&ab, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);

  // Wait for the repetition's child: a process of `ab`'s with its own temporary folder.
  std::vector<pid_t> children;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    children = children_of(ab);
    const bool folder_made = !fs::is_empty(folder_ / "tmp");
    if (!children.empty() && folder_made) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(children.empty()) << "dopant ab started no child within 30 s";
  ASSERT_TRUE(running(children[0]));

  ASSERT_EQ(kill(ab, signal), 0);
  int status = 0;
  ASSERT_EQ(waitpid(ab, &status, 0), ab);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal)
      << "dopant ab ended with status " << status << ", not by signal " << signal;
  for (int tries = 0; tries < 200 && running(children[0]); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(running(children[0])) << "the child `dopant run` outlived dopant ab";
  EXPECT_TRUE(fs::is_empty(folder_ / "tmp")) << "a temporary folder was left in " << (folder_ / "tmp");
  if (running(children[0])) kill(-children[0], SIGKILL);
}

INSTANTIATE_TEST_SUITE_P(Signals, AbInterrupt, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

}  // namespace
