// How one run of one configuration is carried out: in a fresh process or in this one.
#pragma once

#include "ab_data.hpp"

#include <string>

namespace dopant::ab {

class RunBackend {
 public:
  virtual ~RunBackend() = default;
  // Runs configuration `variant` ("base" or a [variants.NAME]) once and returns its metrics.
  // A workload that fails with an error is a result: its code and message in `failure`,
  // with the metrics reported before it failed. Throws std::runtime_error with the reason
  // when the run cannot be carried out or its result cannot be read.
  virtual RunOutput run(const std::string& variant) = 0;
};

}  // namespace dopant::ab
