// The reports of a synthetic A/B result where one variant had failed runs and lacks a
// metric: JSON parses and holds every metric, the samples in run order, the order of runs,
// the failures and the pairs not compared; CSV and Markdown have a row per comparison and
// per pair not compared; every format lists the failed runs; the table names every metric;
// the SVG is well-formed XML (own checker, and xmllint when installed) with one panel per
// metric and one point per sample.
#include "session.hpp"
#include "reports.hpp"
#include <dopant/support/json_value.hpp>
#include "xml_well_formed.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dopant::ab {
namespace {

namespace fs = std::filesystem;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

AbResult synthetic_result() {
  AbResult result;
  result.settings.repetitions = 4;
  AbSamples& s = result.samples;
  s.config_file = "runs/a&b <test>.toml";
  s.workload = "optimizer-step";
  s.variants = {"base", "fast", "slow"};
  s.metrics = {{"step_time", "s", false}, {"params_per_second", "params/s", true}, {"peak <bytes>", "B", false}};
  const std::vector<std::string> order = {"base", "fast", "slow", "slow", "fast", "base",
                                          "base", "fast", "slow", "slow", "fast", "base"};
  for (size_t i = 0; i < order.size(); ++i) s.runs.push_back(RunRecord{order[i], false, i / 3, std::nullopt});
  s.runs[3].failure = RunFailure{"out of memory", "first"};
  s.runs[8].failure = RunFailure{"out of memory", "second"};
  s.runs[9].failure = RunFailure{"invalid argument", "bad <chunk> & size"};
  s.values["base"] = {{"step_time", {1.00, 1.02, 0.99, 1.01}}, {"params_per_second", {100, 98, 101, 99}},
                      {"peak <bytes>", {4096, 4096, 4096, 4096}}};
  s.values["fast"] = {{"step_time", {0.80, 0.81, 0.79, 0.82}}, {"params_per_second", {125, 123, 127, 122}},
                      {"peak <bytes>", {4096, 4096, 4096, 4096}}};
  s.values["slow"] = {{"step_time", {1.30, 1.28, 1.33, 1.31}}, {"params_per_second", {77, 78, 75, 76}}};
  result.metrics = compare_all(s, result.settings.compare);
  return result;
}

const char* const kSlowFailures = "failed 3/4 runs: out of memory: first; invalid argument: bad <chunk> & size";

TEST(Reports, ComparisonsCoverEveryPairWithValues) {
  const AbResult result = synthetic_result();
  ASSERT_EQ(result.metrics.size(), 3u);
  EXPECT_EQ(result.metrics[0].comparisons.size(), 2u);
  EXPECT_EQ(result.metrics[2].comparisons.size(), 1u);  // "slow" has no peak value
  EXPECT_EQ(result.metrics[0].comparisons[0].verdict, Verdict::improved);
  EXPECT_EQ(result.metrics[0].comparisons[1].verdict, Verdict::regressed);
  EXPECT_EQ(result.metrics[1].comparisons[0].verdict, Verdict::improved);
  EXPECT_EQ(result.metrics[2].comparisons[0].verdict, Verdict::no_change);
  ASSERT_EQ(result.metrics[2].not_compared.size(), 1u);
  EXPECT_EQ(result.metrics[2].not_compared[0].variant, "slow");
  EXPECT_EQ(result.metrics[2].not_compared[0].base.n, 4u);
  EXPECT_EQ(result.metrics[2].not_compared[0].base.median, 4096);
  EXPECT_EQ(result.metrics[2].not_compared[0].candidate.n, 0u);
  EXPECT_TRUE(result.metrics[0].not_compared.empty());
}

TEST(Reports, JsonHoldsMetricsSamplesAndOrder) {
  const AbResult result = synthetic_result();
  const JsonValue json = parse_json(render_json(result));
  EXPECT_EQ(json.at("config").string(), result.samples.config_file);
  EXPECT_EQ(json.at("workload").string(), "optimizer-step");
  EXPECT_EQ(json.at("settings").at("repetitions").number(), 4);
  EXPECT_EQ(json.at("settings").at("resamples").number(), 10000);
  ASSERT_EQ(json.at("variants").array().size(), 3u);
  const auto& order = json.at("order").array();
  ASSERT_EQ(order.size(), result.samples.runs.size());
  EXPECT_EQ(order[1].at("variant").string(), "fast");
  EXPECT_FALSE(order[1].at("warmup").boolean());
  EXPECT_FALSE(order[1].at("failed").boolean());
  EXPECT_TRUE(order[3].at("failed").boolean());
  const auto& fast = json.at("samples").at("fast").at("step_time").array();
  ASSERT_EQ(fast.size(), 4u);
  EXPECT_EQ(fast[3].number(), 0.82);
  EXPECT_FALSE(json.at("samples").at("slow").has("peak <bytes>"));
  const auto& metrics = json.at("metrics").array();
  ASSERT_EQ(metrics.size(), 3u);
  for (size_t m = 0; m < metrics.size(); ++m) {
    EXPECT_EQ(metrics[m].at("name").string(), result.samples.metrics[m].name);
    for (const JsonValue& c : metrics[m].at("comparisons").array()) {
      EXPECT_EQ(c.at("ci").array().size(), 2u);
      EXPECT_LE(c.at("ci").array()[0].number(), c.at("ci").array()[1].number());
      const std::string verdict = c.at("verdict").string();
      EXPECT_TRUE(verdict == "improved" || verdict == "regressed" || verdict == "no change") << verdict;
      EXPECT_GE(c.at("mann_whitney").at("p").number(), 0.0);
      EXPECT_EQ(c.at("base").at("n").number(), 4);
    }
  }
  EXPECT_EQ(metrics[1].at("better").string(), "higher");
  EXPECT_TRUE(metrics[0].at("not_compared").array().empty());
  const auto& not_compared = metrics[2].at("not_compared").array();
  ASSERT_EQ(not_compared.size(), 1u);
  EXPECT_EQ(not_compared[0].at("variant").string(), "slow");
  EXPECT_EQ(not_compared[0].at("base").at("n").number(), 4);
  EXPECT_EQ(not_compared[0].at("candidate").at("n").number(), 0);
  EXPECT_TRUE(not_compared[0].at("candidate").at("median").is(JsonValue::Type::null));
}

// The fields of CSV line `line` (no quoted commas in this result's metric rows).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
  return fields;
}

std::string four_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// Every format carries the comparison compare_all computed, not just well-formed fields:
// ratio, interval, p and verdict of each pair. A report that printed the interval's ends
// swapped, or the candidate's median as the base's (both tried in reports.cpp), fails here.
TEST(Reports, EveryFormatCarriesTheComputedComparison) {
  const AbResult result = synthetic_result();
  const JsonValue json = parse_json(render_json(result));
  const std::string csv = render_csv(result);
  const std::string markdown = render_markdown(result);
  std::vector<std::string> csv_lines;
  std::stringstream lines(csv);
  for (std::string line; std::getline(lines, line);) csv_lines.push_back(line);
  size_t row = 1;  // after the header
  for (size_t m = 0; m < result.metrics.size(); ++m) {
    const MetricResult& metric = result.metrics[m];
    const auto& comparisons = json.at("metrics").array()[m].at("comparisons").array();
    ASSERT_EQ(comparisons.size(), metric.comparisons.size());
    for (size_t c = 0; c < metric.comparisons.size(); ++c, ++row) {
      const Comparison& expected = metric.comparisons[c];
      SCOPED_TRACE(metric.info.name + " / " + expected.variant);
      const JsonValue& j = comparisons[c];
      EXPECT_EQ(j.at("variant").string(), expected.variant);
      EXPECT_EQ(j.at("ratio").number(), expected.ratio.ratio);
      EXPECT_EQ(j.at("ci").array()[0].number(), expected.ratio.low);
      EXPECT_EQ(j.at("ci").array()[1].number(), expected.ratio.high);
      EXPECT_EQ(j.at("mann_whitney").at("p").number(), expected.test.p);
      EXPECT_EQ(j.at("base").at("median").number(), expected.base.median);
      EXPECT_EQ(j.at("candidate").at("median").number(), expected.candidate.median);
      EXPECT_EQ(j.at("verdict").string(), verdict_name(expected.verdict));

      ASSERT_LT(row, csv_lines.size());
      const std::vector<std::string> f = csv_fields(csv_lines[row]);
      ASSERT_GE(f.size(), 17u) << csv_lines[row];
      EXPECT_EQ(f[3], expected.variant);
      EXPECT_EQ(std::stod(f[6]), expected.base.median);
      EXPECT_EQ(std::stod(f[8]), expected.candidate.median);
      EXPECT_EQ(std::stod(f[10]), expected.ratio.ratio);
      EXPECT_EQ(std::stod(f[11]), expected.ratio.low);
      EXPECT_EQ(std::stod(f[12]), expected.ratio.high);
      EXPECT_EQ(std::stod(f[14]), expected.test.p);
      EXPECT_EQ(f[16], verdict_name(expected.verdict));

      const std::string cell = four_digits(expected.ratio.ratio) + " [" + four_digits(expected.ratio.low) + ", " +
                               four_digits(expected.ratio.high) + "] | " + four_digits(expected.test.p) + " | " +
                               verdict_name(expected.verdict);
      EXPECT_NE(markdown.find(cell), std::string::npos) << cell << "\n" << markdown;
    }
    row += metric.not_compared.size();
  }
}

TEST(Reports, JsonHoldsTheFailuresOfEveryConfiguration) {
  const JsonValue failures = parse_json(render_json(synthetic_result())).at("failures");
  ASSERT_EQ(failures.object().size(), 3u);
  EXPECT_EQ(failures.at("base").at("count").number(), 0);
  EXPECT_EQ(failures.at("base").at("total").number(), 4);
  EXPECT_TRUE(failures.at("base").at("messages").array().empty());
  const JsonValue& slow = failures.at("slow");
  EXPECT_EQ(slow.at("count").number(), 3);
  EXPECT_EQ(slow.at("total").number(), 4);
  const auto& messages = slow.at("messages").array();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("code").string(), "out of memory");
  EXPECT_EQ(messages[0].at("message").string(), "first");
  EXPECT_EQ(messages[1].at("code").string(), "invalid argument");
  EXPECT_EQ(messages[1].at("message").string(), "bad <chunk> & size");
}

TEST(Reports, CsvMarkdownAndTableHaveARowPerComparison) {
  const AbResult result = synthetic_result();
  const std::string csv = render_csv(result);
  std::istringstream lines(csv);
  std::string line;
  size_t rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 18) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 1u + 5u + 1u);
  EXPECT_NE(csv.find("step_time,s,lower,fast,4,4,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",regressed,," + std::string(kSlowFailures) + "\n"), std::string::npos) << csv;
  const std::string not_compared_row =
      "\npeak <bytes>,B,lower,slow,4,0,4096,0,,,,,,,,,not compared,," + std::string(kSlowFailures) + "\n";
  EXPECT_NE(csv.find(not_compared_row), std::string::npos) << csv;

  const std::string markdown = render_markdown(result);
  EXPECT_EQ(count_of(markdown, "\n| "), 2u + 5u + 1u) << markdown;
  EXPECT_NE(markdown.find("| --- |"), std::string::npos);
  EXPECT_NE(markdown.find("\n- slow: " + std::string(kSlowFailures) + "\n"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" slow(failed)"), std::string::npos) << markdown;

  const std::string table = render_table(result);
  for (const MetricInfo& metric : result.samples.metrics) EXPECT_NE(table.find(metric.name), std::string::npos);
  EXPECT_EQ(count_of(table, "improved"), 2u) << table;
  EXPECT_EQ(count_of(table, "regressed"), 2u) << table;
  EXPECT_EQ(count_of(table, "not compared"), 1u) << table;
  EXPECT_NE(table.find("\n  slow: " + std::string(kSlowFailures) + "\n"), std::string::npos) << table;
  EXPECT_EQ(count_of(table, "failed"), 1u) << table;
}

// A config path is whatever the user's file is called, ESC and newlines included: every
// text report names it on one line, with no raw control byte.
TEST(Reports, AConfigPathWithControlCharactersStaysOneEscapedLine) {
  AbResult result = synthetic_result();
  result.samples.config_file = "runs/\x1b[2J\nname.toml";
  for (const std::string& report : {render_markdown(result), render_table(result), render_csv(result)}) {
    EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
    EXPECT_EQ(report.find("\nname.toml"), std::string::npos) << report;
  }
  EXPECT_EQ(render_markdown(result).rfind("# A/B: runs/\\x1b[2J\\nname.toml\n", 0), 0u) << render_markdown(result);
}

TEST(Reports, SvgIsWellFormedWithAPanelPerMetric) {
  const AbResult result = synthetic_result();
  const std::string svg = render_svg(result);
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_EQ(count_of(svg, "<g>"), result.metrics.size());
  EXPECT_EQ(count_of(svg, "<circle "), 12u + 12u + 8u);
  EXPECT_NE(svg.find("peak &lt;bytes&gt;"), std::string::npos);
  EXPECT_NE(svg.find("slow: failed 3/4 runs: out of memory: first; invalid argument: bad &lt;chunk&gt; &amp; size"),
            std::string::npos)
      << svg;
  EXPECT_EQ(count_of(svg, "not compared with slow: slow has no values"), 1u) << svg;
  EXPECT_NE(svg.find("step_time"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);
}

TEST(Reports, XmlCheckerRejectsBrokenDocuments) {
  EXPECT_NE(testing::xml_problem("<a><b></a>"), "");
  EXPECT_NE(testing::xml_problem("<a x=1/>"), "");
  EXPECT_NE(testing::xml_problem("<a>&nbsp;</a>"), "");
  EXPECT_NE(testing::xml_problem("<a/><b/>"), "");
  EXPECT_NE(testing::xml_problem("<a>"), "");
  EXPECT_EQ(testing::xml_problem("<?xml version=\"1.0\"?>\n<a k='v'>x &amp; y<b/></a>\n"), "");
}

TEST(Reports, SvgPassesXmllint) {
  const std::string xmllint = DOPANT_XMLLINT;
  if (xmllint.empty()) GTEST_SKIP() << "xmllint not installed (Debian package libxml2-utils)";
  const fs::path file = fs::path(::testing::TempDir()) / ("dopant-ab-" + std::to_string(getpid()) + ".svg");
  std::ofstream(file) << render_svg(synthetic_result());
  const int status = std::system(("'" + xmllint + "' --noout '" + file.string() + "'").c_str());
  fs::remove(file);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(JsonValue, ParsesAndRejects) {
  const JsonValue value = parse_json(R"({"a": [1, -2.5e3, true, null], "s": "q\"\u00e9\n"})");
  EXPECT_EQ(value.at("a").array()[1].number(), -2500.0);
  EXPECT_TRUE(value.at("a").array()[3].is(JsonValue::Type::null));
  EXPECT_EQ(value.at("s").string(), "q\"\xc3\xa9\n");
  EXPECT_THROW(parse_json("{\"a\": }"), std::runtime_error);
  EXPECT_THROW(parse_json("[1, 2"), std::runtime_error);
  EXPECT_THROW(parse_json("{} x"), std::runtime_error);
  EXPECT_THROW(value.at("missing"), std::runtime_error);
}

}  // namespace
}  // namespace dopant::ab
