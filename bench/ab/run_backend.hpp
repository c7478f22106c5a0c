// How one run of one configuration is carried out: in a fresh process or in this one.
#pragma once

#include "ab_data.hpp"

#include <string>

namespace dopant::ab {

class RunBackend {
 public:
  virtual ~RunBackend() = default;
  // Runs configuration `variant` ("base" or a [variants.NAME]) once and returns its metrics.
  // Throws std::runtime_error with the reason when the run fails.
  virtual RunOutput run(const std::string& variant) = 0;
};

}  // namespace dopant::ab
