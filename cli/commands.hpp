// The CLI's subcommands. Each returns the process exit code and throws
// std::invalid_argument for usage errors (exit 2) or std::runtime_error for failures.
#pragma once

#include "cli_options.hpp"

#include <dopant/runtime.h>
#include <dopant/support/c_api_errors.hpp>

#include <memory>

namespace dopant::cli {

// Owns a runtime for the duration of a command.
class Runtime {
 public:
  explicit Runtime(const Options& options) : runtime_(open_runtime(options)) {}
  ~Runtime() { dpt_runtime_destroy(runtime_); }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  dpt_runtime* get() const { return runtime_; }

 private:
  dpt_runtime* runtime_;
};

int command_plugins(const Options& options);
int command_run(const Options& options);
int command_check(const Options& options);
int command_inspect(const Options& options);
int command_layout(const Options& options);
int command_convert(const Options& options);
int command_sandbox(const Options& options);
int command_replay(const Options& options);

}  // namespace dopant::cli
