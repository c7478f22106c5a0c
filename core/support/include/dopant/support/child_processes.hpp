// Child processes and temporary folders that never outlive dopant, whether it ends by
// returning, by an exception, or by SIGINT, SIGTERM or SIGHUP.
//
// install_interrupt_cleanup(), called first thing in main() before any thread starts,
// blocks those three signals in every thread and starts one thread that waits for them
// with sigwait. When one arrives, that thread kills the whole process group of every child
// still running, removes every temporary folder still registered, and ends dopant by the
// same signal, so the shell sees the usual status (130 for Ctrl-C). The cleanup runs on an
// ordinary thread, not in a signal handler, so it may take the registry's lock and walk
// folders; the registry's lock also makes starting a child and registering it one step,
// so no child can be started unseen by a cleanup already under way.
//
// On every other path the owners clean up: run_child kills and reaps its child's group
// before it returns or throws, and TemporaryFolder removes its folder when destroyed.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dopant {

// Blocks SIGINT, SIGTERM and SIGHUP and starts the thread that cleans up when one comes.
// Call once, before any other thread exists. Without it, children and temporary folders
// are still cleaned up on returns and exceptions, only not on those signals.
void install_interrupt_cleanup();

// A fresh folder under the system's temporary directory ("PREFIX-XXXXXX"), removed with its
// contents when destroyed or when dopant is interrupted. Throws std::runtime_error when it
// cannot be made.
class TemporaryFolder {
 public:
  explicit TemporaryFolder(const std::string& prefix);
  // The same, made inside `parent` instead: on the filesystem of an output that will be
  // renamed into place from it.
  TemporaryFolder(const std::string& parent, const std::string& prefix);
  ~TemporaryFolder();
  // Forgets the folder without removing it, once it was renamed into place.
  void release();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// For a command that ends on its own terms (a server draining its calls): the next SIGINT,
// SIGTERM or SIGHUP calls `handler` on the cleanup thread instead of cleaning up and ending
// dopant; the handler must return quickly (write to a pipe the command polls). A signal after
// that one cleans up and ends dopant as usual, so a second Ctrl-C still stops it at once.
void defer_next_interrupt(std::function<void()> handler);

// While one lives, SIGINT, SIGTERM or SIGHUP first asks the work it guards to stop:
// requested() turns true, and the cleanup waits (at most `grace_seconds`) for the guard to
// be destroyed, so that its owner stops its threads and removes its own files in order.
// Then the cleanup runs as always and ends dopant by the signal. The guard's destructor,
// once a signal came, does not return: it waits for that end. One guard at a time.
// `on_interrupt`, when given, is called once at the signal, on the cleanup thread with its
// registry locked, before the wait: it must only set a flag (e.g. dpt_runtime_cancel).
class InterruptGrace {
 public:
  explicit InterruptGrace(double grace_seconds, std::function<void()> on_interrupt = nullptr);
  ~InterruptGrace();
  InterruptGrace(const InterruptGrace&) = delete;
  InterruptGrace& operator=(const InterruptGrace&) = delete;

  // [any-thread] Whether one of the three signals has come (never, without the cleanup).
  static bool requested();
};

// A path dopant made outside any TemporaryFolder (a socket file), removed if dopant is
// interrupted until its owner removes it and calls forget_on_interrupt.
void remove_on_interrupt(const std::string& path);
void forget_on_interrupt(const std::string& path);

struct ChildOutcome {
  bool timed_out = false;  // killed at the deadline
  int exit_code = -1;      // when it exited normally, else -1
  int signal = 0;          // the signal that ended it, else 0
};

// Runs argv[0] (a path) to completion in its own process group, with stdin and stdout on
// /dev/null and stderr written to `stderr_path`, killing the whole group past the deadline
// (timeout_seconds <= 0 waits forever). The group is registered for the interrupt cleanup
// while it runs. Throws std::runtime_error when the program cannot be started.
ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds, const std::string& stderr_path);

}  // namespace dopant
