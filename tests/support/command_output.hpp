// Runs a shell command in a test and returns what it printed on standard output with its
// exit status (-1 when it did not exit normally).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

namespace dopant::testing_support {

inline std::pair<std::string, int> command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  const int status = pclose(pipe.release());
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace dopant::testing_support
