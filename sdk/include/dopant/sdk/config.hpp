// dopant SDK — typed reads of a plugin's validated parameters through host->config_*.
// Every read throws sdk::Error (the host's code and message) when the name was not declared
// or has another type.
#pragma once

#include <dopant/host.h>

#include "errors.hpp"

#include <cstdint>
#include <string>

namespace dopant::sdk {

class Config {
 public:
  Config(const dpt_host* host, const dpt_config* config) : host_(host), config_(config) {}

  bool get_bool(const char* name) const {
    int32_t value = 0;
    check(host_, host_->config_bool(host_, config_, name, &value));
    return value != 0;
  }
  int64_t get_int(const char* name) const {
    int64_t value = 0;
    check(host_, host_->config_int(host_, config_, name, &value));
    return value;
  }
  double get_float(const char* name) const {
    double value = 0.0;
    check(host_, host_->config_float(host_, config_, name, &value));
    return value;
  }
  // Strings and enum choices.
  std::string get_string(const char* name) const {
    const char* value = nullptr;
    check(host_, host_->config_string(host_, config_, name, &value));
    return value != nullptr ? value : "";
  }
  // Bytes or counts, units already applied ("256MiB" reads as 268435456).
  uint64_t get_size(const char* name) const {
    uint64_t value = 0;
    check(host_, host_->config_size(host_, config_, name, &value));
    return value;
  }

  const dpt_host* host() const { return host_; }
  const dpt_config* raw() const { return config_; }

 private:
  const dpt_host* host_;
  const dpt_config* config_;
};

}  // namespace dopant::sdk
