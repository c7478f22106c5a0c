// `dopant sandbox exec` through the real CLI: the command's stdout, stderr and exit status
// come back as the CLI's own; a signal is 128 + N and a timeout 124; stdin is forwarded
// only with --stdin; the words after `--` belong to the command, even ones that look like
// dopant's options; bad plugins and parameters are refused, naming them.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
};

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs `dopant ARGS` with `input` on stdin, through the shell (ARGS is shell text).
CliRun run_cli(const std::string& args, const std::string& input = "") {
  char folder[] = "/tmp/dopant-sandbox-cli-XXXXXX";
  if (mkdtemp(folder) == nullptr) return {};
  const fs::path dir = folder;
  std::ofstream(dir / "in") << input;
  const std::string command = std::string(DOPANT_CLI) + " " + args + " <" + (dir / "in").string() + " >" +
                              (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(command.c_str());
  CliRun run{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_text(dir / "out"), read_text(dir / "err")};
  fs::remove_all(dir);
  return run;
}

TEST(SandboxCli, PassesTheCommandsOutputAndExitStatusThrough) {
  for (const char* plugin : {"pbox", "spawn"}) {
    const CliRun run = run_cli(std::string("sandbox exec --plugin ") + plugin +
                               " -- sh -c 'echo out; echo err >&2; exit 3'");
    EXPECT_EQ(run.status, 3) << plugin << ": " << run.err;
    EXPECT_EQ(run.out, "out\n") << plugin;
    EXPECT_NE(run.err.find("err\n"), std::string::npos) << plugin << ": " << run.err;
  }
}

TEST(SandboxCli, ForwardsStdinOnlyWhenAsked) {
  EXPECT_EQ(run_cli("sandbox exec --stdin -- cat", "into the box").out, "into the box");
  const CliRun closed = run_cli("sandbox exec -- cat", "into the box");
  EXPECT_EQ(closed.status, 0) << closed.err;
  EXPECT_EQ(closed.out, "");
}

TEST(SandboxCli, ASignalIs128PlusItAndATimeoutIs124) {
  EXPECT_EQ(run_cli("sandbox exec -- sh -c 'kill -9 $$'").status, 128 + 9);
  const CliRun slow = run_cli("sandbox exec --set timeout_ms=300 -- sleep 60");
  EXPECT_EQ(slow.status, 124);
  EXPECT_NE(slow.err.find("timeout"), std::string::npos) << slow.err;
}

TEST(SandboxCli, WordsAfterTheDashesBelongToTheCommand) {
  const CliRun run = run_cli("sandbox exec -- sh -c 'echo \"$@\"' sh --threads 2 --plugin-path /x --set a=b");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "--threads 2 --plugin-path /x --set a=b\n");
}

// `dopant ARGS` fails with `status` (0: any failure) and says `text` on stderr.
void expect_refused(const std::string& args, int status, const std::string& text) {
  const CliRun run = run_cli(args);
  if (status != 0) {
    EXPECT_EQ(run.status, status) << args;
  }
  EXPECT_NE(run.status, 0) << args;
  EXPECT_NE(run.err.find(text), std::string::npos) << args << ": " << run.err;
}

TEST(SandboxCli, BadPluginsAndParametersAreRefusedByName) {
  expect_refused("sandbox exec --set memory=lots -- true", 0, "memory");
  expect_refused("sandbox exec --plugin no-such-box -- true", 2, "no-such-box");
  expect_refused("sandbox exec --", 2, "no command");
  expect_refused("sandbox exec --set memory -- true", 2, "NAME=VALUE");
  expect_refused("sandbox frobnicate", 2, "frobnicate");
}

}  // namespace
