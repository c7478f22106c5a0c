// Children and temporary folders registered for cleanup, the thread that cleans up on
// SIGINT, SIGTERM and SIGHUP, and run_child (see child_processes.hpp).
#include <dopant/support/child_processes.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

extern char** environ;

namespace dopant {
namespace {

// What the cleanup must reach: process groups of running children, and folders. Never
// destroyed, so the cleanup thread can use it while the main thread runs static destructors.
struct Registry {
  std::mutex lock;
  std::set<pid_t> groups;
  std::set<std::string> folders;  // and other paths of remove_on_interrupt
  std::function<void()> deferred;  // defer_next_interrupt's handler, until a signal takes it
  // An InterruptGrace: whether one lives, how long the cleanup waits for it, and its end.
  bool graced = false;
  double grace_seconds = 0;
  std::function<void()> on_grace_interrupt;
  std::condition_variable grace_ended;
};

std::atomic<bool> interrupt_requested{false};

Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

sigset_t interrupt_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, signal);
  return signals;
}

[[noreturn]] void clean_up_and_die(int signal) {
  interrupt_requested = true;
  {
    Registry& r = registry();
    std::unique_lock<std::mutex> guard(r.lock);  // held to the end, but while waiting: nothing new starts
    if (r.graced && r.on_grace_interrupt) r.on_grace_interrupt();
    r.grace_ended.wait_for(guard, std::chrono::duration<double>(r.grace_seconds), [&] { return !r.graced; });
    for (pid_t group : r.groups) kill(-group, SIGKILL);
    for (const std::string& folder : r.folders) {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }
    // Die by the signal itself, with its default action, while still holding the lock.
    ::signal(signal, SIG_DFL);
    sigset_t just_this;
    sigemptyset(&just_this);
    sigaddset(&just_this, signal);
    pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
    raise(signal);
  }
  _exit(128 + signal);  // not reached: the default action of these signals ends the process
}

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

// A started child's process group: registered while it lives; killed and reaped if it is
// still running when its owner leaves (an exception while waiting).
class RunningChild {
 public:
  explicit RunningChild(pid_t pid) : pid_(pid) {}  // called with the registry locked
  ~RunningChild() {
    if (!reaped_) {
      kill(-pid_, SIGKILL);
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.groups.erase(pid_);
  }
  RunningChild(const RunningChild&) = delete;
  RunningChild& operator=(const RunningChild&) = delete;

  pid_t pid() const { return pid_; }
  void reaped() { reaped_ = true; }

 private:
  pid_t pid_;
  bool reaped_ = false;
};

}  // namespace

void install_interrupt_cleanup() {
  const sigset_t signals = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    for (;;) {
      int signal = 0;
      while (sigwait(&signals, &signal) != 0) {
      }
      std::function<void()> handler;
      {
        Registry& r = registry();
        std::lock_guard<std::mutex> guard(r.lock);
        handler = std::exchange(r.deferred, nullptr);
      }
      if (!handler) clean_up_and_die(signal);
      handler();
    }
  }).detach();
}

void defer_next_interrupt(std::function<void()> handler) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.deferred = std::move(handler);
}

void remove_on_interrupt(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.folders.insert(path);
}

void forget_on_interrupt(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.folders.erase(path);
}

TemporaryFolder::TemporaryFolder(const std::string& prefix)
    : TemporaryFolder(std::filesystem::temp_directory_path().string(), prefix) {}

TemporaryFolder::TemporaryFolder(const std::string& parent, const std::string& prefix) {
  std::string pattern = (std::filesystem::path(parent) / (prefix + "-XXXXXX")).string();
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot make a temporary folder " + pattern + ": " + std::strerror(errno));
  }
  path_ = pattern;
  r.folders.insert(path_);
}

TemporaryFolder::~TemporaryFolder() {
  if (path_.empty()) return;  // released
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  r.folders.erase(path_);
}

void TemporaryFolder::release() {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.folders.erase(path_);
  path_.clear();
}

InterruptGrace::InterruptGrace(double grace_seconds, std::function<void()> on_interrupt) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.graced = true;
  r.grace_seconds = grace_seconds;
  r.on_grace_interrupt = std::move(on_interrupt);
}

InterruptGrace::~InterruptGrace() {
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.graced = false;
    r.on_grace_interrupt = nullptr;  // it may point at what its owner destroys next
    r.grace_ended.notify_all();
  }
  while (interrupt_requested) std::this_thread::sleep_for(std::chrono::seconds(1));  // the cleanup ends dopant
}

bool InterruptGrace::requested() { return interrupt_requested; }

ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds, const std::string& stderr_path) {
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  // Its own process group, so the whole group can be killed; the signals dopant blocks for
  // its cleanup thread are unblocked again in the child.
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&setup.attributes, 0);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&setup.attributes, &no_signals);

  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    const int spawned = posix_spawn(&pid, args[0], &setup.actions, &setup.attributes, args.data(), environ);
    if (spawned != 0) throw std::runtime_error("cannot start `" + argv[0] + "`: " + std::strerror(spawned));
    r.groups.insert(pid);
  }
  RunningChild child(pid);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  auto pause = std::chrono::microseconds(200);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      child.reaped();
      return outcome_of(status);
    }
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (timeout_seconds > 0 && Clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      child.reaped();
      ChildOutcome outcome = outcome_of(status);
      outcome.timed_out = true;
      return outcome;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

}  // namespace dopant
