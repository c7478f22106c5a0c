// Carriage-return progress on a terminal's stderr.
#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>

namespace dopant::ab {

void ProgressLine::show(const std::string& text) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace dopant::ab
