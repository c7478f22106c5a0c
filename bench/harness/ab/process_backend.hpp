// Runs each repetition in a fresh process: `DOPANT [--plugin-path DIR]... run FILE
// --variant NAME --repetitions 1 --json TMP`, then reads TMP. The temporary folder lives
// as long as the backend. A child that exits with status 1 after writing TMP with an
// "error" member is a failed run, returned with its failure and the metrics it reported.
// A child ended by a signal (kCrashedCode, with the signal) or killed at the timeout
// (kTimedOutCode) is a failed run too, with no metrics. Any other non-zero status or
// unreadable output throws: the harness cannot tell what the run did.
#pragma once

#include "run_backend.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

class ProcessBackend : public RunBackend {
 public:
  // Throws std::runtime_error when no temporary folder can be made.
  ProcessBackend(std::string dopant_executable, std::vector<std::string> plugin_paths, std::string config_file,
                 double timeout_seconds);
  ~ProcessBackend() override;
  ProcessBackend(const ProcessBackend&) = delete;
  ProcessBackend& operator=(const ProcessBackend&) = delete;

  RunOutput run(const std::string& variant) override;

 private:
  std::string executable_;
  std::vector<std::string> plugin_paths_;
  std::string config_file_;
  double timeout_seconds_;
  std::string folder_;
};

}  // namespace dopant::ab
