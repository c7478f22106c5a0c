// A sandbox plugin's pool for the sandbox tests: a runtime on the build's plugin folder and
// one instance of `plugin` made from TOML parameters; and the error helpers the tests share.
#pragma once

#include <dopant/sandbox.h>
#include <dopant/runtime.h>

#include <string>

// The message of `error` ("" for NULL), which is freed.
inline std::string take(dpt_error* error) {
  if (error == nullptr) return "";
  std::string message = dpt_error_get_message(error);
  dpt_error_destroy(error);
  return message;
}

// The code of `error` (DPT_OK for NULL), which is freed.
inline dpt_code take_code(dpt_error* error) {
  const dpt_code code = error == nullptr ? DPT_OK : dpt_error_get_code(error);
  dpt_error_destroy(error);
  return code;
}

class TestPool {
 public:
  TestPool(const char* plugin, const std::string& params) {
    const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, DOPANT_SANDBOX_PLUGIN_DIR, 1, DPT_LOG_WARN, 1};
    error_ = take(dpt_runtime_create(&options, &runtime_));
    dpt_config* config = nullptr;
    if (error_.empty()) error_ = take(dpt_plugin_params_parse(runtime_, plugin, params.c_str(), nullptr, &config));
    if (error_.empty()) error_ = take(dpt_plugin_instance_create(runtime_, plugin, config, &instance_));
    dpt_plugin_params_destroy(config);
  }
  ~TestPool() {
    dpt_plugin_instance_destroy(instance_);
    dpt_runtime_destroy(runtime_);
  }
  TestPool(const TestPool&) = delete;
  TestPool& operator=(const TestPool&) = delete;

  // "" when the pool was made, else why not.
  const std::string& error() const { return error_; }
  const dpt_sandbox_v1& table() const {
    return *static_cast<const dpt_sandbox_v1*>(dpt_plugin_instance_table(instance_));
  }
  dpt_instance* handle() const { return dpt_plugin_instance_handle(instance_); }

 private:
  std::string error_;
  dpt_runtime* runtime_ = nullptr;
  dpt_plugin_instance* instance_ = nullptr;
};
