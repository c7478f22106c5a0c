// posix_spawn with a deadline: poll waitpid, SIGKILL the child's process group when late.
#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace dopant::ab {
namespace {

// posix_spawn's attributes and file actions, released on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

ChildOutcome outcome_of(int status) {
  ChildOutcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds, const std::string& stderr_path) {
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&setup.attributes, 0);

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &setup.actions, &setup.attributes, args.data(), environ);
  if (spawned != 0) throw std::runtime_error("cannot start `" + argv[0] + "`: " + std::strerror(spawned));

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  auto pause = std::chrono::microseconds(200);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return outcome_of(status);
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (timeout_seconds > 0 && Clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      ChildOutcome outcome = outcome_of(status);
      outcome.timed_out = true;
      return outcome;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);  // "SEGV", or NULL for an unknown number
  return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

std::string describe_outcome(const ChildOutcome& outcome, double timeout_seconds) {
  if (outcome.timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
    return std::string("timed out after ") + seconds + " s and was killed";
  }
  if (outcome.signal != 0) {
    return "was killed by signal " + std::to_string(outcome.signal) + " (" + signal_name(outcome.signal) + ", " +
           strsignal(outcome.signal) + ")";
  }
  return "exited with status " + std::to_string(outcome.exit_code);
}

}  // namespace dopant::ab
