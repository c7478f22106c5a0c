// A runtime for SDK tests: no plugins from the search path, CPU device, host table at hand.
#pragma once

#include <dopant/runtime.h>

#include <gtest/gtest.h>

#include <string>

class TestRuntime {
 public:
  TestRuntime() {
    const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, nullptr, 1, DPT_LOG_WARN, 2};
    dpt_error* error = dpt_runtime_create(&options, &runtime_);
    if (error != nullptr) {
      ADD_FAILURE() << "dpt_runtime_create: " << dpt_error_get_message(error);
      dpt_error_destroy(error);
    }
  }
  ~TestRuntime() { dpt_runtime_destroy(runtime_); }
  TestRuntime(const TestRuntime&) = delete;
  TestRuntime& operator=(const TestRuntime&) = delete;

  dpt_runtime* get() const { return runtime_; }
  const dpt_host* host() const { return dpt_runtime_host(runtime_); }

 private:
  dpt_runtime* runtime_ = nullptr;
};

// Code and message of an error returned through the ABI; frees it. {DPT_OK, ""} for NULL.
struct TakenError {
  dpt_code code = DPT_OK;
  std::string message;
};
inline TakenError take_error(const dpt_host* host, dpt_error* error) {
  if (error == nullptr) return {};
  TakenError taken{host->error_code(host, error), host->error_message(host, error)};
  host->error_free(host, error);
  return taken;
}
