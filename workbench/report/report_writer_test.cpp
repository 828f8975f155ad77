//===- workbench/report/report_writer_test.cpp - Report formats -----------===//
//
// Each format rendered from a synthetic report with every kind of row (ok,
// incorrect, error, skipped). The external consumers (Google Benchmark's
// compare.py, a JUnit parser, headless Chromium) read these same renderings
// in tests/cli/report_cli_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "workbench/report/report_rows.h"
#include "workbench/report/report_writer.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace kb::report {
namespace {

BenchReport mixedReport() {
  BenchReport r = makeMixedReport(15);
  r.environment.warnings = {"GPU shared with <1> other process"};
  return r;
}

std::string render(const BenchReport &r, ReportFormat f) {
  StatusOr<std::string> text = renderReport(r, f);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

size_t codePoints(const std::string &s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

TEST(ReportRows, EveryBenchmarkAppearsEvenWithoutTiming) {
  BenchReport r = mixedReport();
  std::vector<ReportRow> rows = reportRows(r);
  std::vector<std::string> ids;
  for (const ReportRow &row : rows)
    ids.push_back(row.id + "=" + row.verdict());
  EXPECT_EQ(ids,
            (std::vector<std::string>{
                "saxpy/candidate/cold=ok", "saxpy/reference/cold=ok",
                "reduce|sum/candidate/cold=ok", "reduce|sum/reference/cold=ok",
                "wrong/candidate=incorrect", "wrong/reference/cold=ok",
                "hang=error", "big=skipped"}));
}

TEST(Markdown, IsAnAlignedTableThatFitsATerminal) {
  std::string md = render(mixedReport(), ReportFormat::Markdown);
  std::vector<std::string> table;
  for (const std::string &line : lines(md))
    if (!line.empty() && line[0] == '|')
      table.push_back(line);
  ASSERT_EQ(table.size(), 2u + 8u); // header, rule, 8 rows
  for (const std::string &line : table) {
    EXPECT_EQ(codePoints(line), codePoints(table[0])) << line;
    EXPECT_LE(codePoints(line), 120u) << line;
  }
  EXPECT_NE(md.find("| reduce\\|sum "), std::string::npos); // '|' escaped
  EXPECT_NE(md.find("INCORRECT"), std::string::npos);
  EXPECT_NE(md.find("**hang** error: kernel timed out"), std::string::npos);
  EXPECT_NE(md.find("1.50x"), std::string::npos); // speedup vs reference
  EXPECT_NE(md.find("\u00b1"), std::string::npos);
}

TEST(Csv, HasOneLinePerRowAndAFixedColumnCount) {
  std::string csv = render(mixedReport(), ReportFormat::Csv);
  std::vector<std::string> all = lines(csv);
  ASSERT_EQ(all.size(), 1u + 8u);
  auto columns = [](const std::string &line) {
    size_t n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        ++n;
    }
    return n;
  };
  for (const std::string &line : all)
    EXPECT_EQ(columns(line), columns(all[0])) << line;
  EXPECT_EQ(all[3].rfind("reduce|sum,candidate,candidate,cold,ok,", 0), 0u);
  EXPECT_EQ(all[7].rfind("hang,,,,error,,", 0), 0u) << all[7];
}

TEST(GBench, OneIterationPerSamplePlusFourAggregates) {
  BenchReport r = mixedReport();
  nlohmann::json j = nlohmann::json::parse(render(r, ReportFormat::GBench));
  ASSERT_TRUE(j.contains("context"));
  EXPECT_EQ(j["context"]["kb_device"], "Synthetic GPU");
  EXPECT_NE(j["context"]["kb_not_timed"].get<std::string>().find("hang: error"),
            std::string::npos);
  size_t iterations = 0, aggregates = 0;
  for (const auto &e : j["benchmarks"]) {
    EXPECT_EQ(e["time_unit"], "ns");
    if (e["run_type"] == "iteration") {
      ++iterations;
      EXPECT_GT(e["real_time"].get<double>(), 0);
      EXPECT_GT(e["cpu_time"].get<double>(), e["real_time"].get<double>());
    } else {
      ++aggregates;
    }
  }
  EXPECT_EQ(iterations, 5u * 15u); // five timed rows x 15 samples
  EXPECT_EQ(aggregates, 5u * 4u);
  const auto &first = j["benchmarks"][0];
  EXPECT_EQ(first["name"], "saxpy/candidate/cold/manual_time");
  EXPECT_EQ(first["repetitions"], 15);
  const auto &median = j["benchmarks"][16];
  EXPECT_EQ(median["name"], "saxpy/candidate/cold/manual_time_median");
  EXPECT_DOUBLE_EQ(median["real_time"].get<double>(),
                   r.benchmarks[0].variants[0].timings[0].summary.median);
}

TEST(JUnit, OneCasePerBenchmarkAndVariant) {
  std::string xml = render(mixedReport(), ReportFormat::JUnit);
  EXPECT_NE(xml.find("tests=\"8\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"INCORRECT\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"ERROR\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"synthetic: skipped\"/>"),
            std::string::npos);
}

// Markup in what the writer does emit (a skip reason, an error reason, a
// benchmark name) comes out as entities, in attributes and in text.
TEST(JUnit, MarkupInReasonsAndNamesIsEscaped) {
  BenchReport r = mixedReport();
  size_t reasons = 0;
  for (Benchmark &b : r.benchmarks) {
    if (b.status == BenchStatus::Skipped || b.status == BenchStatus::Error) {
      b.reason = "needs <1> \"GPU\" & 'more'";
      ++reasons;
    }
  }
  ASSERT_GE(reasons, 2u) << "the mixed report has a skipped and an error row";
  r.benchmarks[0].name = "saxpy<f32>";
  std::string xml = render(r, ReportFormat::JUnit);
  EXPECT_NE(xml.find("message=\"needs &lt;1&gt; &quot;GPU&quot; &amp; "
                     "&apos;more&apos;\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("classname=\"kernel-bench.saxpy&lt;f32&gt;\""),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<1>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<f32>"), std::string::npos) << xml;
}

TEST(Html, IsSelfContained) {
  std::string html = render(mixedReport(), ReportFormat::Html);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // The only http:// is the SVG namespace name, which is never fetched.
  size_t at = 0;
  while ((at = html.find("http://", at)) != std::string::npos) {
    EXPECT_EQ(html.compare(at, 26, "http://www.w3.org/2000/svg"), 0);
    ++at;
  }
  EXPECT_NE(html.find("aria-label=\"median time per benchmark"),
            std::string::npos);
  EXPECT_NE(html.find("aria-label=\"percent of measured peak"),
            std::string::npos);
  EXPECT_NE(html.find("aria-label=\"samples of saxpy/candidate/cold\""),
            std::string::npos);
  EXPECT_NE(html.find("GPU shared with &lt;1&gt; other process"),
            std::string::npos);
}

/// The x of the <text> element whose content is |label| (-1 when none).
double labelX(const std::string &html, const std::string &label) {
  size_t at = html.find(">" + label + "</text>");
  if (at == std::string::npos)
    return -1;
  size_t x = html.rfind("<text x=\"", at);
  return x == std::string::npos ? -1 : std::stod(html.substr(x + 9));
}

// Chart labels are right-aligned against the plot: a fixed 220 px gutter
// cut the start off long names. The gutter now holds the longest label; one
// too long for any gutter is cut at its end, whole in its tooltip.
TEST(Html, ChartLabelsFitTheirGutter) {
  BenchReport r = mixedReport();
  r.benchmarks[0].name = "main_dispatch_0_512x256x1";
  std::string html = render(r, ReportFormat::Html);
  std::string label = "main_dispatch_0_512x256x1 \u00b7 candidate";
  // 37 characters of 11px sans-serif: at least 6 px each.
  EXPECT_GE(labelX(html, label), 37 * 6.0) << html;
  r.benchmarks[0].name = std::string(150, 'k') + "_tail";
  html = render(r, ReportFormat::Html);
  EXPECT_EQ(html.find("_tail \u00b7 candidate</text>"), std::string::npos);
  EXPECT_NE(html.find("<title>" + std::string(150, 'k') +
                      "_tail \u00b7 candidate</title>kkk"),
            std::string::npos);
  EXPECT_NE(html.find("k\u2026</text>"), std::string::npos);
}

// The table has report.md's columns and words (`correct`, not `ok`), and
// the terminal table's noise.
/// A copy kernel swept over n = 1K..16K: one benchmark per point, the
/// larger ones slower.
BenchReport sweptReport() {
  SyntheticSpec spec;
  for (int64_t n = 1024; n <= 16384; n *= 2)
    spec.benchmarks.push_back(
        {"copy-n" + std::to_string(n) + "_" + std::to_string(n) + "x1x1",
         double(n)});
  spec.benchmarks.push_back({"saxpy_1024x1x1", 500});
  BenchReport r = makeSyntheticReport(spec);
  for (size_t i = 0; i + 1 < r.benchmarks.size(); ++i) {
    r.benchmarks[i].sweep = {"copy", {{"n", int64_t(1024) << i}}};
    for (Variant &v : r.benchmarks[i].variants)
      for (Timing &t : v.timings)
        t.derived.gbPerSecond =
            8.0 * double(int64_t(1024) << i) / t.summary.median;
  }
  return r;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(Html, ASweepIsDrawnAgainstItsSize) {
  BenchReport report = sweptReport();
  std::string html = render(report, ReportFormat::Html);
  EXPECT_EQ(count(html, "<figure class=\"sweep-chart\""), 1u);
  // One point per size per variant in time, GB/s and (FLOPs declared)
  // GFLOP/s; the benchmark that is not swept is not drawn.
  for (const char *variant : {"candidate", "reference"})
    for (const char *metric : {"time", "gbps", "gflops"})
      EXPECT_EQ(count(html, std::string("class=\"sweep-point\" "
                                        "data-variant=\"") +
                                variant + "\" data-metric=\"" + metric + "\""),
                5u)
          << variant << " " << metric;
  EXPECT_EQ(count(html, "class=\"noise-band\""), 6u);
  for (const char *x : {"1024", "2048", "4096", "8192", "16384"})
    EXPECT_EQ(count(html, std::string("data-x=\"") + x + "\""), 6u) << x;
  EXPECT_NE(html.find(">16K</text>"), std::string::npos);
  EXPECT_NE(html.find("viewBox=\"0 0 640.0 240.0\""), std::string::npos);
  // Without FLOPs, no GFLOP/s panel; without a sweep, no section.
  for (Benchmark &b : report.benchmarks)
    for (Variant &v : b.variants)
      for (Timing &t : v.timings)
        t.derived.gflopPerSecond.reset();
  html = render(report, ReportFormat::Html);
  EXPECT_EQ(count(html, "data-metric=\"gflops\""), 0u);
  EXPECT_EQ(count(html, "data-metric=\"gbps\""), 11u); // 10 + the panel
  EXPECT_EQ(render(mixedReport(), ReportFormat::Html).find("sweep-chart"),
            std::string::npos);
  // A point at 0 has no place on a log axis: left out, and said so.
  report.benchmarks[0].sweep.values[0].second = 0;
  html = render(report, ReportFormat::Html);
  EXPECT_EQ(count(html, "class=\"sweep-point\" data-variant=\"candidate\" "
                        "data-metric=\"time\""),
            4u);
  EXPECT_NE(html.find("2 point(s) at n &lt;= 0 left out (log axis)"),
            std::string::npos);
  EXPECT_EQ(html.find("nan"), std::string::npos);
}

TEST(Html, TwoSweptConstantsAreOneFigurePerValueOfTheFirst) {
  BenchReport report = sweptReport();
  report.benchmarks.resize(4);
  for (size_t i = 0; i < 4; ++i)
    report.benchmarks[i].sweep = {
        "mm", {{"m", i < 2 ? 64 : 128}, {"k", i % 2 ? 32 : 16}}};
  std::string html = render(report, ReportFormat::Html);
  EXPECT_EQ(count(html, "<figure class=\"sweep-chart\""), 2u);
  EXPECT_NE(html.find("mm at m=64 against k"), std::string::npos);
  EXPECT_NE(html.find("mm at m=128 against k"), std::string::npos);
  EXPECT_EQ(count(html, "data-metric=\"time\" data-x=\"16\""), 4u);
}

TEST(Csv, ASweepPointIsItsLastColumn) {
  std::vector<std::string> all =
      lines(render(sweptReport(), ReportFormat::Csv));
  EXPECT_NE(all[0].find(",shared_memory_bytes,sweep\r"), std::string::npos);
  EXPECT_EQ(all[1].substr(all[1].size() - 8), ",n=1024\r") << all[1];
  EXPECT_EQ(all.back().substr(all.back().size() - 2), ",\r") << all.back();
}

TEST(Html, TableHasReportMdsColumnsAndWords) {
  std::string html = render(mixedReport(), ReportFormat::Html);
  EXPECT_NE(html.find("<th>samples</th><th>noise</th><th>GFLOP/s</th>"
                      "<th>GB/s</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"ok\">correct</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"ok\">(reference)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"bad\">INCORRECT"), std::string::npos);
  EXPECT_EQ(html.find(">ok</td>"), std::string::npos) << html;
  EXPECT_EQ(html.find(">ok: "), std::string::npos);
  EXPECT_NE(html.find("%</td>"), std::string::npos); // a noise cell
}

/// The mixed report with the whole program timed (|status| Ok: with the
/// substitutions and generated only), or failed with a reason.
BenchReport withProgram(BenchStatus status) {
  BenchReport r = mixedReport();
  ProgramResult p;
  p.entryFunction = "main";
  p.status = status;
  if (status == BenchStatus::Ok) {
    p.withSubstitutions = r.benchmarks[0].variants[0].timings[0];
    p.generatedOnly = r.benchmarks[0].variants[1].timings[0];
    p.speedup = 1.25;
  } else {
    p.reason = "outputs differ at index 3";
  }
  r.program = p;
  return r;
}

/// The line of |text| that holds every one of |parts|; "" when none does.
std::string lineWith(const std::string &text,
                     const std::vector<std::string> &parts) {
  for (const std::string &line : lines(text)) {
    bool all = true;
    for (const std::string &part : parts)
      all = all && line.find(part) != std::string::npos;
    if (all)
      return line;
  }
  return "";
}

// The terminal table ends with the whole program's rows; report.md,
// report.html and junit.xml had none of them.
TEST(ProgramRows, AreInMarkdownHtmlAndJUnit) {
  BenchReport r = withProgram(BenchStatus::Ok);
  std::string md = render(r, ReportFormat::Markdown);
  EXPECT_NE(lineWith(md, {"| program main ", "| with substitutions ",
                          " 1.25x |", "| correct "}),
            "")
      << md;
  EXPECT_NE(
      lineWith(md, {"| program main ", "| generated only ", "| (reference) "}),
      "")
      << md;
  std::string html = render(r, ReportFormat::Html);
  EXPECT_NE(html.find("<tr><td>program main</td><td>with substitutions</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>program main</td><td>generated only</td>"),
            std::string::npos);
  std::string xml = render(r, ReportFormat::JUnit);
  EXPECT_NE(xml.find("tests=\"10\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"kernel-bench.program main\" "
                     "name=\"with substitutions\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("1.25x vs generated only"), std::string::npos);
}

TEST(ProgramRows, AFailedProgramIsOneFailingRow) {
  BenchReport r = withProgram(BenchStatus::Incorrect);
  std::string md = render(r, ReportFormat::Markdown);
  EXPECT_NE(lineWith(md, {"| program main ", "| INCORRECT "}), "") << md;
  EXPECT_NE(md.find("**program main** incorrect: outputs differ at index 3"),
            std::string::npos)
      << md;
  std::string html = render(r, ReportFormat::Html);
  EXPECT_NE(html.find("INCORRECT: outputs differ at index 3"),
            std::string::npos);
  std::string xml = render(r, ReportFormat::JUnit);
  EXPECT_NE(xml.find("tests=\"9\" failures=\"3\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"kernel-bench.program main\" "
                     "name=\"(program)\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("message=\"outputs differ at index 3\""),
            std::string::npos);
}

TEST(ReportWriter, WritesEveryFormatIntoTheDirectory) {
  auto scratch = kb::TempDir::create(std::filesystem::temp_directory_path(),
                                     "kb_report_writer_test");
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  std::filesystem::path dir = scratch->path();
  auto written = writeReports(mixedReport(), dir, allReportFormats());
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->size(), 6u);
  for (const char *name : {"bench.json", "gbench.json", "report.md",
                           "report.csv", "junit.xml", "report.html"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name;
  EXPECT_EQ(parseReportFormat("md"), ReportFormat::Markdown);
  EXPECT_FALSE(parseReportFormat("pdf").has_value());
}

} // namespace
} // namespace kb::report
