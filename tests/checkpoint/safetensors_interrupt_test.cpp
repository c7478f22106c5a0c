// A safetensors writer in a process with dopant's interrupt cleanup leaves nothing behind
// when the process gets SIGINT, SIGTERM or SIGHUP mid-write: the temporary folder beside
// the destination goes, and the destination never appears. The process ends by the signal.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

class SafetensorsInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(SafetensorsInterrupt, LeavesNoTemporaryFolderAndNoDestination) {
  std::string pattern = (fs::temp_directory_path() / "dopant-st-interrupt-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path folder = pattern;
  const std::string destination = (folder / "out").string();

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(ready[1], STDOUT_FILENO);
    close(ready[0]);
    execl(DOPANT_INTERRUPTED_WRITER, DOPANT_INTERRUPTED_WRITER, destination.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  char line[6] = {};
  ASSERT_EQ(read(ready[0], line, 6), 6) << "the writer did not get ready";
  close(ready[0]);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1)
      << "the temporary folder should exist while writing";

  kill(child, GetParam());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam()) << "status " << status;
  EXPECT_TRUE(fs::is_empty(folder)) << "files were left in " << folder;
  fs::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(Signals, SafetensorsInterrupt, ::testing::Values(SIGINT, SIGTERM, SIGHUP));

}  // namespace
