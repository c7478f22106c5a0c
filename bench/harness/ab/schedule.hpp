// The order of runs: rounds of every configuration, alternating direction from round to
// round (A B, B A, A B, ...: the ABBA pattern; with more variants A B C, C B A, ...), so
// slow drifts of the machine hit every configuration alike. Warm-up rounds come first and
// follow the same pattern; their results are not counted.
#pragma once

#include <cstddef>
#include <vector>

namespace dopant::ab {

struct ScheduledRun {
  size_t variant = 0;     // index into the configurations, 0 is the base
  bool warmup = false;
  size_t repetition = 0;  // 0-based, counted separately for warm-ups and measured runs
};

std::vector<ScheduledRun> interleaved_schedule(size_t configuration_count, size_t repetitions, size_t warmups);

}  // namespace dopant::ab
