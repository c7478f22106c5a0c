// Runs a program to completion in its own process group, with stdin and stdout on
// /dev/null and stderr captured to a file, killing the whole group past a deadline.
#pragma once

#include <string>
#include <vector>

namespace dopant::ab {

struct ChildOutcome {
  bool timed_out = false;  // killed at the deadline
  int exit_code = -1;      // when it exited normally, else -1
  int signal = 0;          // the signal that ended it, else 0
};

// argv[0] is the program's path. timeout_seconds <= 0 waits forever. Throws
// std::runtime_error when the program cannot be started.
ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_seconds, const std::string& stderr_path);

// "SIGSEGV" for 11; "signal N" for a number without a name.
std::string signal_name(int signal);

// "exited with status 3", "was killed by signal 11 (SIGSEGV, Segmentation fault)",
// "timed out after 5 s and was killed".
std::string describe_outcome(const ChildOutcome& outcome, double timeout_seconds);

}  // namespace dopant::ab
