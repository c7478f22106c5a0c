// Formatting of the session summary, the comparison cells and the failed runs, and the
// widths and wrapping of text.
#include "report_cells.hpp"

#include "child_process.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dopant::ab {

size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(' ', start), text.size());
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string short_number(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string session_summary(const AbResult& result) {
  const AbSettings& s = result.settings;
  std::string text = result.samples.config_file + ": workload " + result.samples.workload + "; " +
                     std::to_string(s.repetitions) + " repetitions per configuration (+" + std::to_string(s.warmups) +
                     " warm-up" + (s.warmups == 1 ? "" : "s") + "), interleaved; " +
                     (s.fresh_processes ? "fresh process per run" : "in process") + "; ";
  char rule[160];
  std::snprintf(rule, sizeof rule, "%g%% bootstrap CI (%zu resamples, seed %llu); verdict at p < %g beyond %g%% noise",
                100 * s.compare.bootstrap.confidence, s.compare.bootstrap.resamples,
                static_cast<unsigned long long>(s.compare.bootstrap.seed), s.compare.rule.alpha,
                100 * s.compare.rule.noise_threshold);
  return text + rule;
}

std::string side_cell(const SideSummary& side) {
  return side.n == 0 ? "no values" : short_number(side.median) + " ± " + short_number(side.mad);
}

std::vector<std::vector<std::string>> comparison_cells(const AbResult& result) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"metric", "unit", "better", "variant", "base median ± MAD", "variant median ± MAD",
                  "ratio [95% CI]", "p", "verdict"});
  for (const MetricResult& metric : result.metrics) {
    const std::vector<std::string> info{metric.info.name, metric.info.unit,
                                        metric.info.higher_is_better ? "higher" : "lower"};
    const auto add_row = [&](std::vector<std::string> cells) {
      cells.insert(cells.begin(), info.begin(), info.end());
      rows.push_back(std::move(cells));
    };
    for (const Comparison& c : metric.comparisons) {
      add_row({c.variant, side_cell(c.base), side_cell(c.candidate),
               short_number(c.ratio.ratio) + " [" + short_number(c.ratio.low) + ", " + short_number(c.ratio.high) + "]",
               short_number(c.test.p), verdict_name(c.verdict)});
    }
    for (const OneSided& pair : metric.not_compared) {
      add_row({pair.variant, side_cell(pair.base), side_cell(pair.candidate), "n/a", "n/a", kNotCompared});
    }
  }
  return rows;
}

std::string unreported_text(const UnreportedRun& run) {
  const std::string where = (run.warmup ? " in warm-up " : " in repetition ") + std::to_string(run.repetition + 1);
  if (run.failure.code == kCrashedCode) {
    return kCrashedCode + where + " (" + signal_name(run.failure.signal) + ", signal " +
           std::to_string(run.failure.signal) + ")";
  }
  return run.failure.code + where;
}

std::string failure_text(const FailureSummary& summary) {
  std::string text = "failed " + std::to_string(summary.failed) + "/" + std::to_string(summary.runs) + " runs";
  if (summary.failed_warmups > 0) {
    text += " (+" + std::to_string(summary.failed_warmups) + " failed warm-up" +
            (summary.failed_warmups == 1 ? "" : "s") + ")";
  }
  text += ": ";
  size_t item = 0;
  for (const RunFailure& failure : summary.first_of_each_code) {
    text += (item++ ? "; " : "") + failure.code + ": " + failure.message;
  }
  for (const UnreportedRun& run : summary.unreported) text += (item++ ? "; " : "") + unreported_text(run);
  return text;
}

std::vector<std::string> failure_lines(const AbResult& result) {
  std::vector<std::string> lines;
  for (const FailureSummary& summary : configurations_with_failures(result.samples)) {
    lines.push_back(summary.variant + ": " + failure_text(summary));
  }
  return lines;
}

}  // namespace dopant::ab
