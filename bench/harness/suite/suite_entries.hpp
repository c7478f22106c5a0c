// The headline A/B of each kind: the baseline and optimized plugins of DESIGN's table, the
// metric that shows the optimization, and the run file that measures it at laptop scale.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::suite {

struct SuiteEntry {
  std::string kind;                // "optimizer"
  std::string baseline;            // plugin id
  std::string optimized;           // plugin id
  std::string metric;              // headline metric reported by the workload
  // Run file with a base ([SLOT] = baseline) and a variant named "optimized"; `{scale:N}`
  // stands for N multiplied by the suite's scale, rounded, at least 1. Empty while the
  // kind's workload is not built.
  std::string run_file;
  // 0: one process; N: each run under `mpirun -np N` (skipped when mpirun is not found).
  uint32_t ranks = 0;
};

const std::vector<SuiteEntry>& suite_entries();

// The run file with every `{scale:N}` replaced. Throws std::invalid_argument on a
// malformed placeholder.
std::string scaled_run_file(const std::string& text, double scale);

}  // namespace dopant::suite
