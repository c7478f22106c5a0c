// The human-readable text shared by the reports: a one-line description of the session,
// one row per (metric, variant) comparison or pair not compared, and the failed runs.
#pragma once

#include "ab_data.hpp"
#include "run_failures.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// Width on a terminal, in characters: UTF-8 continuation bytes take no column.
size_t display_width(const std::string& text);

// The words of `text` in lines of at most `width` characters (a longer word alone on its line).
std::vector<std::string> wrap_words(const std::string& text, size_t width);

// "%.4g", or "n/a" when not finite.
std::string short_number(double value);

// "FILE: workload W; 7 repetitions per configuration (+1 warm-up); fresh process per run; ..."
std::string session_summary(const AbResult& result);

// The verdict cell of a pair that only one side has values of.
inline constexpr const char* kNotCompared = "not compared";

// "median ± MAD", or "no values" when the side has none.
std::string side_cell(const SideSummary& side);

// A header row, then per metric one row per comparison and one per pair not compared
// (ratio and p "n/a", verdict kNotCompared).
std::vector<std::vector<std::string>> comparison_cells(const AbResult& result);

// "crashed in repetition 2 (SIGSEGV, signal 11)", "timed out in warm-up 1": repetitions
// counted from 1, as the progress line and error messages count them.
std::string unreported_text(const UnreportedRun& run);

// "failed 2/3 runs (+1 failed warm-up): out of memory: MESSAGE; invalid argument: MESSAGE;
// crashed in repetition 3 (SIGSEGV, signal 11)": warm-ups are not among the 3 runs.
std::string failure_text(const FailureSummary& summary);

// "CONFIGURATION: " + failure_text, per configuration with failed runs.
std::vector<std::string> failure_lines(const AbResult& result);

}  // namespace dopant::ab
