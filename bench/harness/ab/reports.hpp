// The reports of an A/B session: the summary of failed runs per configuration, the text
// cells the formats share and the renderers (terminal table, CSV, JSON, Markdown, SVG).
// The files are written by dopant/support/output_files.hpp.
#pragma once

#include "ab_data.hpp"

#include <string>
#include <vector>

namespace dopant::ab {

// The failed runs of one configuration, summed up for the reports: how many of its measured
// runs failed out of how many (warm-ups are not counted there, as they are not among the
// repetitions; their failures are counted apart), the first message of each distinct error
// code, and every run that crashed or timed out, with its repetition.

// A run that ended without reporting a result: crashed (with its signal) or timed out.
struct UnreportedRun {
  bool warmup = false;
  size_t repetition = 0;  // 0-based, within the warm-ups or within the repetitions
  RunFailure failure;
};

struct FailureSummary {
  std::string variant;
  size_t failed = 0;          // failed measured runs
  size_t runs = 0;            // measured runs
  size_t failed_warmups = 0;  // failed warm-up runs, not in `failed` nor `runs`
  std::vector<RunFailure> first_of_each_code;  // reported errors, in the order the codes first occurred
  std::vector<UnreportedRun> unreported;       // crashes and timeouts, in run order
};

FailureSummary summarize_failures(const AbSamples& samples, const std::string& variant);

// The summaries of the configurations that had at least one failed run (warm-ups included),
// in their order.
std::vector<FailureSummary> configurations_with_failures(const AbSamples& samples);

// The human-readable text shared by the reports: a one-line description of the session,
// one row per (metric, variant) comparison or pair not compared, and the failed runs.

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

// The reports of an A/B result, each rendered to text: the terminal table, JSON (with the
// raw samples and the order of runs), CSV, Markdown and a self-contained SVG chart.

std::string render_table(const AbResult& result);
std::string render_json(const AbResult& result);
std::string render_csv(const AbResult& result);
std::string render_markdown(const AbResult& result);
std::string render_svg(const AbResult& result);

}  // namespace dopant::ab
