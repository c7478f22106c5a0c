// The human-readable cells shared by the terminal table and the Markdown report: a
// one-line description of the session and one row per (metric, variant) comparison.
#pragma once

#include "ab_data.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// "%.4g", or "n/a" when not finite.
std::string short_number(double value);

// "FILE: workload W; 7 repetitions per configuration (+1 warm-up); fresh process per run; ..."
std::string session_summary(const AbResult& result);

// A header row, then one row per comparison.
std::vector<std::vector<std::string>> comparison_cells(const AbResult& result);

}  // namespace dopant::ab
