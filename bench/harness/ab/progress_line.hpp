// One self-overwriting progress line on stderr while runs go on, shown only when stderr
// is a terminal.
#pragma once

#include <string>

namespace dopant::ab {

class ProgressLine {
 public:
  // `enabled` false prints nothing; use stderr_is_terminal() for the default.
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text);
  // Erases the line, if shown.
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
};

bool stderr_is_terminal();

}  // namespace dopant::ab
