// `dopant` with no arguments (or `dopant suite`): runs the headline A/B of every kind whose
// plugins are installed, lists the others as skipped with the reason, and ends with one
// table: kind, metric, baseline, optimized, ratio, verdict.
#pragma once

#include <string>
#include <vector>

namespace dopant::suite {

// `args`: the words after `suite` (--scale F, --repetitions N, --timeout S, --only KIND; the scale's
// default comes from DOPANT_SUITE_SCALE when set, else 1). Returns the
// exit code: 0 when every measured entry ran. Throws std::invalid_argument on bad args.
int command_suite(const std::vector<std::string>& args, const std::string& self_executable,
                  const std::vector<std::string>& plugin_paths);

}  // namespace dopant::suite
