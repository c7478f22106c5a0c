// The interleaved ABBA schedule.
#include "schedule.hpp"

namespace dopant::ab {

std::vector<ScheduledRun> interleaved_schedule(size_t configuration_count, size_t repetitions, size_t warmups) {
  std::vector<ScheduledRun> runs;
  runs.reserve(configuration_count * (repetitions + warmups));
  const size_t rounds = warmups + repetitions;
  for (size_t round = 0; round < rounds; ++round) {
    const bool warmup = round < warmups;
    const size_t repetition = warmup ? round : round - warmups;
    for (size_t i = 0; i < configuration_count; ++i) {
      const size_t variant = round % 2 == 0 ? i : configuration_count - 1 - i;
      runs.push_back(ScheduledRun{variant, warmup, repetition});
    }
  }
  return runs;
}

}  // namespace dopant::ab
