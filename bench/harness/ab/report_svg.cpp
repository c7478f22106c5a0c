// The SVG chart: one panel per metric stacked top to bottom; in each panel one column per
// configuration with a box (quartiles, median line, whiskers to min and max) and the
// measured values as points over it, and under each variant its ratio, interval and
// verdict, or "not compared" when one side has no values (said under the panel's title).
// The failed runs of each configuration are listed at the top, under the session's lines.
// Plain SVG 1.1 with inline attributes only: no scripts, styles or fonts to fetch.
#include "reports.hpp"
#include "statistics.hpp"

#include <dopant/support/text.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dopant::ab {
namespace {

constexpr double kWidth = 720;
constexpr double kPanelHeight = 300;
constexpr double kHeaderHeight = 70;
constexpr double kPlotLeft = 90;
constexpr double kPlotRight = 700;
constexpr double kFailureLineHeight = 15;
constexpr size_t kFailureLineWidth = 110;  // characters
constexpr double kPlotTop = 50;     // within a panel
constexpr double kPlotBottom = 230;  // within a panel
const char* const kColors[] = {"#4c78a8", "#f58518", "#54a24b", "#e45756", "#b279a2", "#9d755d"};

// Control characters, which XML 1.0 forbids, become one_line's escapes first.
std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : one_line(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string text_element(double x, double y, const std::string& anchor, int size, const std::string& content,
                         const std::string& extra = "") {
  return "<text x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\" text-anchor=\"" + anchor + "\" font-size=\"" +
         std::to_string(size) + "\"" + extra + ">" + xml_escape(content) + "</text>\n";
}

std::string line_element(double x1, double y1, double x2, double y2, const std::string& stroke, double width) {
  return "<line x1=\"" + fixed(x1) + "\" y1=\"" + fixed(y1) + "\" x2=\"" + fixed(x2) + "\" y2=\"" + fixed(y2) +
         "\" stroke=\"" + stroke + "\" stroke-width=\"" + fixed(width) + "\"/>\n";
}

// A 1-2-5 step giving about five ticks over [low, high].
double tick_step(double low, double high) {
  const double raw = (high - low) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0}) {
    if (factor * magnitude >= raw) return factor * magnitude;
  }
  return 10 * magnitude;
}

struct Range {
  double low;
  double high;
};

Range value_range(const std::vector<const std::vector<double>*>& columns) {
  double low = INFINITY;
  double high = -INFINITY;
  for (const auto* values : columns) {
    for (const double v : *values) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  if (!(low <= high)) return {0, 1};
  const double pad = high > low ? 0.08 * (high - low) : std::max(std::fabs(low) * 0.05, 1e-12);
  return {low - pad, high + pad};
}

// Caption under a variant's column: "×0.82 [0.80, 0.84] improved", or "not compared".
std::string caption(const MetricResult& metric, const std::string& variant) {
  for (const Comparison& c : metric.comparisons) {
    if (c.variant != variant) continue;
    return "×" + short_number(c.ratio.ratio) + " [" + short_number(c.ratio.low) + ", " + short_number(c.ratio.high) +
           "] " + verdict_name(c.verdict);
  }
  for (const OneSided& pair : metric.not_compared) {
    if (pair.variant == variant) return kNotCompared;
  }
  return "";
}

// Under a panel's title, which pairs lack values on one side: "not compared with offload:
// base has no values"; empty when every pair was compared.
std::string not_compared_note(const AbSamples& samples, const MetricResult& metric) {
  std::string note;
  for (const OneSided& pair : metric.not_compared) {
    const std::string& empty_side = pair.base.n == 0 ? samples.variants[0] : pair.variant;
    note += (note.empty() ? "" : "; ") + std::string(kNotCompared) + " with " + pair.variant + ": " + empty_side +
            " has no values";
  }
  return note;
}

// The failed runs, wrapped to the chart's width.
std::vector<std::string> failure_text_lines(const AbResult& result) {
  std::vector<std::string> lines;
  for (const std::string& failure : failure_lines(result)) {
    for (std::string& line : wrap_words(failure, kFailureLineWidth)) lines.push_back(std::move(line));
  }
  return lines;
}

std::string panel(const AbResult& result, const MetricResult& metric, double top) {
  const AbSamples& samples = result.samples;
  std::vector<const std::vector<double>*> columns;
  static const std::vector<double> none;
  for (const std::string& variant : samples.variants) {
    const auto found = samples.values.find(variant);
    const bool has = found != samples.values.end() && found->second.count(metric.info.name) != 0;
    columns.push_back(has ? &found->second.at(metric.info.name) : &none);
  }
  const Range range = value_range(columns);
  const double plot_top = top + kPlotTop;
  const double plot_bottom = top + kPlotBottom;
  const auto y_of = [&](double v) {
    return plot_bottom - (v - range.low) / (range.high - range.low) * (plot_bottom - plot_top);
  };

  std::string svg = "<g>\n";
  const std::string direction = metric.info.higher_is_better ? "higher is better" : "lower is better";
  svg += text_element(kPlotLeft, top + 24, "start", 15,
                      metric.info.name + (metric.info.unit.empty() ? "" : " [" + metric.info.unit + "]") + " — " +
                          direction,
                      " font-weight=\"bold\"");
  const std::string note = not_compared_note(samples, metric);
  if (!note.empty()) svg += text_element(kPlotLeft, top + 40, "start", 11, note, " fill=\"#b22222\"");
  svg += "<rect x=\"" + fixed(kPlotLeft) + "\" y=\"" + fixed(plot_top) + "\" width=\"" + fixed(kPlotRight - kPlotLeft) +
         "\" height=\"" + fixed(plot_bottom - plot_top) + "\" fill=\"#fafafa\" stroke=\"#999999\"/>\n";
  const double step = tick_step(range.low, range.high);
  for (double tick = std::ceil(range.low / step) * step; tick <= range.high; tick += step) {
    const double y = y_of(tick);
    svg += line_element(kPlotLeft, y, kPlotRight, y, "#e3e3e3", 1);
    svg += text_element(kPlotLeft - 6, y + 4, "end", 11, short_number(std::fabs(tick) < step * 1e-9 ? 0 : tick));
  }

  const double column_width = (kPlotRight - kPlotLeft) / static_cast<double>(columns.size());
  for (size_t v = 0; v < columns.size(); ++v) {
    const double center = kPlotLeft + column_width * (static_cast<double>(v) + 0.5);
    const std::string color = kColors[v % (sizeof kColors / sizeof kColors[0])];
    std::vector<double> sorted = *columns[v];
    std::sort(sorted.begin(), sorted.end());
    if (!sorted.empty()) {
      const double box_half = std::min(40.0, column_width / 4);
      const double q1 = y_of(quantile_of_sorted(sorted, 0.25));
      const double q3 = y_of(quantile_of_sorted(sorted, 0.75));
      svg += line_element(center, y_of(sorted.front()), center, y_of(sorted.back()), color, 1.5);
      svg += line_element(center - box_half / 2, y_of(sorted.front()), center + box_half / 2, y_of(sorted.front()),
                          color, 1.5);
      svg += line_element(center - box_half / 2, y_of(sorted.back()), center + box_half / 2, y_of(sorted.back()),
                          color, 1.5);
      svg += "<rect x=\"" + fixed(center - box_half) + "\" y=\"" + fixed(q3) + "\" width=\"" + fixed(2 * box_half) +
             "\" height=\"" + fixed(std::max(q1 - q3, 1.0)) + "\" fill=\"" + color +
             "\" fill-opacity=\"0.18\" stroke=\"" + color + "\" stroke-width=\"1.5\"/>\n";
      const double median_y = y_of(quantile_of_sorted(sorted, 0.5));
      svg += line_element(center - box_half, median_y, center + box_half, median_y, color, 3);
      const auto& in_run_order = *columns[v];
      for (size_t i = 0; i < in_run_order.size(); ++i) {
        const double jitter = (static_cast<double>((i * 7) % 11) - 5) * box_half / 6;
        svg += "<circle cx=\"" + fixed(center + jitter) + "\" cy=\"" + fixed(y_of(in_run_order[i])) +
               "\" r=\"3.5\" fill=\"" + color + "\" fill-opacity=\"0.85\" stroke=\"#ffffff\" stroke-width=\"0.8\"/>\n";
      }
    }
    const std::string name = (v == 0 ? "A: " : "B: ") + samples.variants[v] + " (n=" + std::to_string(sorted.size()) + ")";
    svg += text_element(center, plot_bottom + 18, "middle", 13, name, " fill=\"" + color + "\"");
    if (v > 0) svg += text_element(center, plot_bottom + 36, "middle", 12, caption(metric, samples.variants[v]));
  }
  return svg + "</g>\n";
}

}  // namespace

std::string render_svg(const AbResult& result) {
  const std::vector<std::string> failures = failure_text_lines(result);
  const double header_height = kHeaderHeight + kFailureLineHeight * static_cast<double>(failures.size());
  const double height = header_height + kPanelHeight * static_cast<double>(std::max<size_t>(result.metrics.size(), 1));
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + fixed(kWidth) + "\" height=\"" +
         fixed(height) + "\" viewBox=\"0 0 " + fixed(kWidth) + " " + fixed(height) +
         "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  svg += "<title>" + xml_escape("dopant ab: " + result.samples.config_file) + "</title>\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + fixed(kWidth) + "\" height=\"" + fixed(height) + "\" fill=\"#ffffff\"/>\n";
  svg += text_element(20, 24, "start", 16, "dopant ab — " + result.samples.config_file + " (" +
                                               result.samples.workload + ")", " font-weight=\"bold\"");
  svg += text_element(20, 44, "start", 11,
                      std::to_string(result.settings.repetitions) +
                          " interleaved runs per configuration; box: quartiles, thick line: median, whiskers: min–max",
                      " fill=\"#555555\"");
  svg += text_element(20, 60, "start", 11,
                      "under each variant: ratio of medians B/A [" +
                          short_number(100 * result.settings.compare.bootstrap.confidence) +
                          "% bootstrap CI] and verdict",
                      " fill=\"#555555\"");
  for (size_t i = 0; i < failures.size(); ++i) {
    svg += text_element(20, kHeaderHeight + kFailureLineHeight * static_cast<double>(i) + 4, "start", 11, failures[i],
                        " fill=\"#b22222\"");
  }
  for (size_t m = 0; m < result.metrics.size(); ++m) {
    svg += panel(result, result.metrics[m], header_height + kPanelHeight * static_cast<double>(m));
  }
  return svg + "</svg>\n";
}

}  // namespace dopant::ab
