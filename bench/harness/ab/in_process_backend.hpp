// Runs each repetition in this process (`--in-process`): the workload of the run file,
// found with workloads::find, through the host-side C API on a shared runtime.
#pragma once

#include "loaded_config.hpp"
#include "run_backend.hpp"
#include "workloads.hpp"

namespace dopant::ab {

class InProcessBackend : public RunBackend {
 public:
  // `loaded` must outlive the backend. Throws std::runtime_error when the run file names a
  // workload that is not built in.
  explicit InProcessBackend(const LoadedConfig& loaded);
  RunOutput run(const std::string& variant) override;

 private:
  const LoadedConfig& loaded_;
  const workloads::Workload* workload_;
};

}  // namespace dopant::ab
