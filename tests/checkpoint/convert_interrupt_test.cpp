// A conversion in a process with dopant's interrupt cleanup and an InterruptGrace (as
// `dopant convert` runs it) that gets SIGINT or SIGTERM mid-way is stopped by its cancel
// predicate (the helper reports DPT_CANCELLED), leaves no temporary folder and no
// destination, and the process still ends by the signal.
#include <dopant/base.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

class ConvertInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(ConvertInterrupt, CancelsLeavesNothingAndEndsByTheSignal) {
  std::string pattern = (fs::temp_directory_path() / "dopant-convert-interrupt-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path folder = pattern;
  const std::string source = std::string(DOPANT_CHECKPOINT_FIXTURES) + "/megatron/qwen2_stacked";
  const std::string destination = (folder / "out").string();

  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execl(DOPANT_INTERRUPTED_CONVERT, DOPANT_INTERRUPTED_CONVERT, source.c_str(), destination.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string said;
  char buffer[64];
  while (said.find("ready\n") == std::string::npos) {
    const ssize_t got = read(out[0], buffer, sizeof buffer);
    ASSERT_GT(got, 0) << "the conversion did not get ready: " << said;
    said.append(buffer, static_cast<size_t>(got));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1)
      << "the temporary folder should exist while converting";

  kill(child, GetParam());
  for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<size_t>(got));
  close(out[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(said, "ready\ncancelled " + std::to_string(DPT_CANCELLED) + "\n");
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam()) << "status " << status;
  EXPECT_TRUE(fs::is_empty(folder)) << "files were left in " << folder;
  fs::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(Signals, ConvertInterrupt, ::testing::Values(SIGINT, SIGTERM));

}  // namespace
