// The failed-runs summary, the shared cells, the terminal table, CSV, JSON and Markdown
// reports. The SVG chart is report_svg.cpp.

#include "reports.hpp"

#include "session.hpp"

#include <unistd.h>

#include <dopant/runtime.h>
#include <dopant/support/json_text.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

namespace dopant::ab {

// Counting a configuration's failed runs, keeping one message per reported error code and
// every crash and timeout with its repetition.

FailureSummary summarize_failures(const AbSamples& samples, const std::string& variant) {
  FailureSummary summary;
  summary.variant = variant;
  for (const RunRecord& run : samples.runs) {
    if (run.variant != variant) continue;
    if (!run.warmup) ++summary.runs;
    if (!run.failure) continue;
    ++(run.warmup ? summary.failed_warmups : summary.failed);
    if (run.failure->never_reported()) {
      summary.unreported.push_back(UnreportedRun{run.warmup, run.repetition, *run.failure});
      continue;
    }
    auto& kept = summary.first_of_each_code;
    const bool seen = std::any_of(kept.begin(), kept.end(),
                                  [&](const RunFailure& failure) { return failure.code == run.failure->code; });
    if (!seen) kept.push_back(*run.failure);
  }
  return summary;
}

std::vector<FailureSummary> configurations_with_failures(const AbSamples& samples) {
  std::vector<FailureSummary> summaries;
  for (const std::string& variant : samples.variants) {
    FailureSummary summary = summarize_failures(samples, variant);
    if (summary.failed + summary.failed_warmups > 0) summaries.push_back(std::move(summary));
  }
  return summaries;
}

// Formatting of the session summary, the comparison cells and the failed runs, and the
// widths and wrapping of text.

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
  std::string text = one_line(result.samples.config_file) + ": workload " + one_line(result.samples.workload) + "; " +
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
    const std::vector<std::string> info{one_line(metric.info.name), one_line(metric.info.unit),
                                        metric.info.higher_is_better ? "higher" : "lower"};
    const auto add_row = [&](std::vector<std::string> cells) {
      cells.insert(cells.begin(), info.begin(), info.end());
      rows.push_back(std::move(cells));
    };
    for (const Comparison& c : metric.comparisons) {
      add_row({one_line(c.variant), side_cell(c.base), side_cell(c.candidate),
               short_number(c.ratio.ratio) + " [" + short_number(c.ratio.low) + ", " + short_number(c.ratio.high) + "]",
               short_number(c.test.p), verdict_name(c.verdict)});
    }
    for (const OneSided& pair : metric.not_compared) {
      add_row({one_line(pair.variant), side_cell(pair.base), side_cell(pair.candidate), "n/a", "n/a", kNotCompared});
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
    // A plugin's message may hold anything: one line, so no report breaks on it.
    text += (item++ ? "; " : "") + one_line(failure.code) + ": " + one_line(failure.message);
  }
  for (const UnreportedRun& run : summary.unreported) text += (item++ ? "; " : "") + unreported_text(run);
  return text;
}

std::vector<std::string> failure_lines(const AbResult& result) {
  std::vector<std::string> lines;
  for (const FailureSummary& summary : configurations_with_failures(result.samples)) {
    lines.push_back(one_line(summary.variant) + ": " + failure_text(summary));
  }
  return lines;
}

// The terminal table: the session summary, aligned columns, then the failed runs.

std::string render_table(const AbResult& result) {
  const auto rows = comparison_cells(result);
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  }
  std::string text = session_summary(result) + "\n";
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - display_width(row[i]) + 1, ' ');
    }
    text += line + "\n";
  }
  const bool compared = std::any_of(result.metrics.begin(), result.metrics.end(),
                                   [](const MetricResult& metric) { return !metric.comparisons.empty(); });
  if (!compared) text += "  (no metric was reported by both the base and a variant)\n";
  for (const std::string& line : failure_lines(result)) text += "  " + line + "\n";
  return text;
}

// The CSV report: one row per (metric, variant) comparison, numbers at full precision, then
// one per pair only one side has values of (statistics empty, verdict "not compared"); the
// last two columns give the base's and the variant's failed runs, empty when none.

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Full precision; empty when not finite.
std::string csv_number(double value) {
  const std::string text = json_number(value);
  return text == "null" ? "" : text;
}

}  // namespace

std::string render_csv(const AbResult& result) {
  std::map<std::string, std::string> failures;  // configuration -> failure_text, when it had any
  for (const FailureSummary& summary : configurations_with_failures(result.samples)) {
    failures[summary.variant] = csv_field(failure_text(summary));
  }
  const std::string base = result.samples.variants.empty() ? std::string() : result.samples.variants[0];
  std::string text =
      "metric,unit,better,variant,n_base,n_variant,median_base,mad_base,median_variant,mad_variant,"
      "ratio,ci_low,ci_high,u,p,p_method,verdict,base_failures,variant_failures\n";
  for (const MetricResult& metric : result.metrics) {
    const auto add_row = [&](const std::string& variant, const SideSummary& base_side,
                             const SideSummary& variant_side, const std::vector<std::string>& statistics) {
      std::vector<std::string> fields{csv_field(metric.info.name), csv_field(metric.info.unit),
                                      metric.info.higher_is_better ? "higher" : "lower", csv_field(variant),
                                      std::to_string(base_side.n), std::to_string(variant_side.n),
                                      csv_number(base_side.median), csv_number(base_side.mad),
                                      csv_number(variant_side.median), csv_number(variant_side.mad)};
      fields.insert(fields.end(), statistics.begin(), statistics.end());
      fields.push_back(failures[base]);
      fields.push_back(failures[variant]);
      for (size_t i = 0; i < fields.size(); ++i) text += (i ? "," : "") + fields[i];
      text += "\n";
    };
    for (const Comparison& c : metric.comparisons) {
      add_row(c.variant, c.base, c.candidate,
              {csv_number(c.ratio.ratio), csv_number(c.ratio.low), csv_number(c.ratio.high), csv_number(c.test.u),
               csv_number(c.test.p), method_name(c.test.method), verdict_name(c.verdict)});
    }
    for (const OneSided& pair : metric.not_compared) {
      add_row(pair.variant, pair.base, pair.candidate, {"", "", "", "", "", "", kNotCompared});
    }
  }
  return text;
}

// The JSON report: settings, configurations, the order of runs, each configuration's raw
// values in run order and failed runs (a crash with its signal and repetition), and per
// metric the comparisons against the base and the pairs not compared.

namespace {

std::string side_json(const SideSummary& side) {
  return "{\"n\": " + std::to_string(side.n) + ", \"median\": " + json_number(side.median) +
         ", \"mad\": " + json_number(side.mad) + "}";
}

std::string comparison_json(const Comparison& c) {
  return "{\"variant\": " + json_string(c.variant) + ", \"base\": " + side_json(c.base) +
         ", \"candidate\": " + side_json(c.candidate) + ", \"ratio\": " + json_number(c.ratio.ratio) +
         ", \"ci\": [" + json_number(c.ratio.low) + ", " + json_number(c.ratio.high) +
         "], \"mann_whitney\": {\"u\": " + json_number(c.test.u) + ", \"p\": " + json_number(c.test.p) +
         ", \"method\": " + json_string(method_name(c.test.method)) + "}, \"verdict\": " +
         json_string(verdict_name(c.verdict)) + "}";
}

std::string one_sided_json(const OneSided& pair) {
  return "{\"variant\": " + json_string(pair.variant) + ", \"base\": " + side_json(pair.base) +
         ", \"candidate\": " + side_json(pair.candidate) + "}";
}

// The code and message of a run that never reported, with its signal when it crashed.
std::string failure_fields(const RunFailure& failure) {
  std::string text = "\"code\": " + json_string(failure.code);
  if (failure.signal != 0) {
    text += ", \"signal\": " + std::to_string(failure.signal) + ", \"signal_name\": " +
            json_string(signal_name(failure.signal));
  }
  return text + ", \"message\": " + json_string(failure.message);
}

std::string failures_json(const FailureSummary& summary) {
  std::string text = "{\"count\": " + std::to_string(summary.failed) + ", \"total\": " + std::to_string(summary.runs) +
                     ", \"failed_warmups\": " + std::to_string(summary.failed_warmups) + ", \"messages\": [";
  for (size_t i = 0; i < summary.first_of_each_code.size(); ++i) {
    const RunFailure& failure = summary.first_of_each_code[i];
    text += std::string(i ? ", " : "") + "{\"code\": " + json_string(failure.code) +
            ", \"message\": " + json_string(failure.message) + "}";
  }
  text += "], \"unreported\": [";
  for (size_t i = 0; i < summary.unreported.size(); ++i) {
    const UnreportedRun& run = summary.unreported[i];
    text += std::string(i ? ", " : "") + "{\"warmup\": " + (run.warmup ? "true" : "false") +
            ", \"repetition\": " + std::to_string(run.repetition) + ", " + failure_fields(run.failure) + "}";
  }
  return text + "]}";
}

std::string settings_json(const AbSettings& s) {
  return "{\"repetitions\": " + std::to_string(s.repetitions) + ", \"warmups\": " + std::to_string(s.warmups) +
         ", \"fresh_processes\": " + (s.fresh_processes ? "true" : "false") +
         ", \"timeout_seconds\": " + json_number(s.timeout_seconds) +
         ", \"seed\": " + std::to_string(s.compare.bootstrap.seed) +
         ", \"resamples\": " + std::to_string(s.compare.bootstrap.resamples) +
         ", \"confidence\": " + json_number(s.compare.bootstrap.confidence) +
         ", \"alpha\": " + json_number(s.compare.rule.alpha) +
         ", \"noise_threshold\": " + json_number(s.compare.rule.noise_threshold) + "}";
}

}  // namespace

std::string render_json(const AbResult& result) {
  const AbSamples& samples = result.samples;
  std::string text = "{\n  \"dopant_version\": " + json_string(dpt_version()) +
                     ",\n  \"config\": " + json_string(samples.config_file) +
                     ",\n  \"workload\": " + json_string(samples.workload) +
                     ",\n  \"settings\": " + settings_json(result.settings) + ",\n  \"variants\": [";
  for (size_t i = 0; i < samples.variants.size(); ++i) text += (i ? ", " : "") + json_string(samples.variants[i]);
  text += "],\n  \"order\": [";
  for (size_t i = 0; i < samples.runs.size(); ++i) {
    const RunRecord& run = samples.runs[i];
    text += std::string(i ? "," : "") + "\n    {\"variant\": " + json_string(run.variant) +
            ", \"warmup\": " + (run.warmup ? "true" : "false") +
            ", \"repetition\": " + std::to_string(run.repetition) +
            ", \"failed\": " + (run.failure ? "true" : "false") +
            (run.failure && run.failure->never_reported() ? ", " + failure_fields(*run.failure) : "") + "}";
  }
  text += "\n  ],\n  \"samples\": {";
  bool first_variant = true;
  for (const std::string& variant : samples.variants) {
    text += std::string(first_variant ? "" : ",") + "\n    " + json_string(variant) + ": {";
    first_variant = false;
    const auto found = samples.values.find(variant);
    bool first_metric = true;
    for (const MetricInfo& info : samples.metrics) {
      if (found == samples.values.end() || !found->second.count(info.name)) continue;
      text += std::string(first_metric ? "" : ", ") + json_string(info.name) + ": [";
      first_metric = false;
      const auto& values = found->second.at(info.name);
      for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + json_number(values[i]);
      text += "]";
    }
    text += "}";
  }
  text += "\n  },\n  \"failures\": {";
  for (size_t i = 0; i < samples.variants.size(); ++i) {
    text += std::string(i ? "," : "") + "\n    " + json_string(samples.variants[i]) + ": " +
            failures_json(summarize_failures(samples, samples.variants[i]));
  }
  text += "\n  },\n  \"metrics\": [";
  for (size_t m = 0; m < result.metrics.size(); ++m) {
    const MetricResult& metric = result.metrics[m];
    text += std::string(m ? "," : "") + "\n    {\"name\": " + json_string(metric.info.name) +
            ", \"unit\": " + json_string(metric.info.unit) +
            ", \"better\": " + json_string(metric.info.higher_is_better ? "higher" : "lower") + ", \"comparisons\": [";
    for (size_t c = 0; c < metric.comparisons.size(); ++c) {
      text += std::string(c ? "," : "") + "\n      " + comparison_json(metric.comparisons[c]);
    }
    text += "], \"not_compared\": [";
    for (size_t p = 0; p < metric.not_compared.size(); ++p) {
      text += std::string(p ? "," : "") + "\n      " + one_sided_json(metric.not_compared[p]);
    }
    text += "]}";
  }
  return text + "\n  ]\n}\n";
}

// The Markdown report: a heading, the session summary, the comparison table, the failed
// runs as a list, and the order of runs.

namespace {

// One line (control characters escaped), with `|` escaped so it cannot end a table cell.
std::string escape_cell(const std::string& text) {
  std::string out;
  for (const char c : one_line(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += " " + escape_cell(cell) + " |";
  return line + "\n";
}

}  // namespace

std::string render_markdown(const AbResult& result) {
  const auto rows = comparison_cells(result);
  std::string text = "# A/B: " + escape_cell(result.samples.config_file) + "\n\n" + session_summary(result) + "\n\n";
  text += markdown_row(rows[0]);
  text += markdown_row(std::vector<std::string>(rows[0].size(), "---"));
  for (size_t i = 1; i < rows.size(); ++i) text += markdown_row(rows[i]);
  const std::vector<std::string> failures = failure_lines(result);
  if (!failures.empty()) text += "\nFailed runs:\n\n";
  for (const std::string& line : failures) text += "- " + escape_cell(line) + "\n";
  text += "\nOrder of runs:";
  for (const RunRecord& run : result.samples.runs) {
    text += " " + run.variant + (run.warmup ? "(warm-up)" : "") + (run.failure ? "(" + (run.failure->never_reported() ? run.failure->code : std::string("failed")) + ")" : "");
  }
  return text + "\n";
}

}  // namespace dopant::ab
