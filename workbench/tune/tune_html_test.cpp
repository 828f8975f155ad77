//===- workbench/tune/tune_html_test.cpp ----------------------------------===//
// tune.html rendered from a synthetic search: one chart per parameter, a
// heatmap cell per pair of values of the first two, failed and unmeasured
// cells marked and labelled, brief (halving level 0) times kept apart, the
// failed configurations listed with their reasons, names escaped.
#include "workbench/tune/tune_html.h"

#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

using MStatus = TuneMeasurement::Status;

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

// A parameter name is an identifier in a kernel.toml; the page must not
// rely on that.
const char *kOdd = "B<&\">";

TuneSpace space() {
  TuneSpace s;
  s.parameters = {{"A", {4, 1, 2}, TuneApply::Define, "kernel.toml:1:1"},
                  {kOdd, {16, 8}, TuneApply::Define, "kernel.toml:2:1"},
                  {"C", {0, 1}, TuneApply::Define, "kernel.toml:3:1"}};
  return s;
}

TuneResult result(int64_t a, int64_t b, int64_t c, MStatus status,
                  double ns = 0, std::string message = "", int level = 2) {
  TuneResult r;
  r.values = {{"A", a}, {kOdd, b}, {"C", c}};
  r.measurement.status = status;
  r.measurement.level = level;
  r.measurement.medianNs = ns;
  r.measurement.message = std::move(message);
  return r;
}

TuneRunInfo info() {
  TuneRunInfo i;
  i.kernel = "mm<script>";
  i.deviceName = "llvmpipe & co";
  i.backend = "vulkan";
  i.target = "vulkan:1.2";
  i.spaceSize = 12;
  i.candidates = 12;
  return i;
}

/// (A, B) cells: (1,8) ok 2 us; (2,8) compile-error; (4,8) not measured;
/// (1,16) incorrect; (2,16) ok 1 us, the best; (4,16) error + incorrect.
TuneSearchResult searched() {
  TuneSearchResult r;
  r.results = {
      result(1, 8, 0, MStatus::Ok, 3000),
      result(1, 8, 1, MStatus::Ok, 2000),
      result(2, 8, 0, MStatus::CompileError, 0,
             "kernel.comp:3: error: <bad> token\nmore output"),
      result(2, 8, 1, MStatus::CompileError, 0, "kernel.comp:3: error"),
      result(1, 16, 0, MStatus::Incorrect, 0, "c[0] = 1, expected 2"),
      result(2, 16, 0, MStatus::Ok, 1000),
      result(4, 16, 0, MStatus::Error, 0, "device lost"),
      result(4, 16, 1, MStatus::Incorrect, 0, "c[1] = 0, expected 2"),
  };
  r.best = 5;
  return r;
}

TEST(TuneHtmlTest, ChartsHeatmapAndFailures) {
  std::string html = renderTuneHtml(info(), space(), searched(), 10);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // One chart per parameter, one heatmap of the first two (A x B...).
  EXPECT_EQ(count(html, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                        "class=\"tune-chart\""),
            3u);
  EXPECT_EQ(count(html, "class=\"tune-heatmap\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"cell "), 6u);
  EXPECT_EQ(count(html, "<rect class=\"cell ok\""), 2u);
  EXPECT_EQ(count(html, "<rect class=\"cell failed\""), 3u);
  EXPECT_EQ(count(html, "<rect class=\"cell unmeasured\""), 1u);
  // Each cell says what it is, in its title and as text.
  EXPECT_NE(html.find("<title>A=2 B&lt;&amp;&quot;&gt;=8: every configuration "
                      "compile-error (2)</title>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<title>A=1 B&lt;&amp;&quot;&gt;=16: every "
                      "configuration incorrect (1)</title>"),
            std::string::npos);
  EXPECT_NE(html.find("<title>A=4 B&lt;&amp;&quot;&gt;=16: every "
                      "configuration failed (2)</title>"),
            std::string::npos);
  EXPECT_NE(html.find("<title>A=4 B&lt;&amp;&quot;&gt;=8: not measured"),
            std::string::npos);
  EXPECT_NE(html.find(">2.00 us</text>"), std::string::npos);
  EXPECT_NE(html.find(">not measured</text>"), std::string::npos);
  // A's chart: 1 -> 2 us, 2 -> 1 us (the best, green), 4 -> all failed;
  // the values ascending although declared 4, 1, 2.
  EXPECT_NE(html.find("<title>A=2: 1.00 us (A=2 B&lt;&amp;&quot;&gt;=16 "
                      "C=0)</title>"),
            std::string::npos);
  EXPECT_LT(html.find("<title>A=1:"), html.find("<title>A=2:"));
  EXPECT_LT(html.find("<title>A=2:"), html.find("<title>A=4:"));
  EXPECT_NE(html.find("<title>A=4: every configuration failed (2)"),
            std::string::npos);
  EXPECT_EQ(count(html, "fill=\"#16a34a\""), 3u); // each chart's best
  // Header: the best; the failed listed with their reasons.
  EXPECT_NE(html.find("Best: <b>A=2 B&lt;&amp;&quot;&gt;=16 C=0</b>, 1.00 us"),
            std::string::npos);
  EXPECT_EQ(count(html, "<td class=\"bad\">"), 5u);
  EXPECT_NE(html.find("<details><summary>kernel.comp:3: error: &lt;bad&gt; "
                      "token</summary>"),
            std::string::npos);
  EXPECT_NE(html.find("device lost"), std::string::npos);
  // Nothing unescaped.
  EXPECT_EQ(html.find(kOdd), std::string::npos);
  EXPECT_EQ(html.find("mm<script>"), std::string::npos);
  EXPECT_NE(html.find("mm&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("llvmpipe &amp; co"), std::string::npos);
}

TEST(TuneHtmlTest, BriefTimesAreNotRankedWithFullOnes) {
  TuneSearchResult r;
  r.results = {result(1, 8, 0, MStatus::Ok, 5000, "", 2),
               result(2, 8, 0, MStatus::Ok, 100, "", 0)};
  r.best = 0;
  std::string html = renderTuneHtml(info(), space(), r, 10);
  EXPECT_EQ(count(html, "<rect class=\"cell ok\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"cell brief\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"bar brief\""), 1u); // A=2
  EXPECT_NE(html.find("<title>A=2: measured briefly only: 100 ns"),
            std::string::npos);
  // The top table ranks the full measurement; the brief one is in a table
  // of its own after it, unranked.
  size_t full = html.find("<td class=\"cfg\">A=1 B");
  size_t briefTable = html.find("<table class=\"brief\">");
  size_t brief = html.find("<td class=\"cfg\">A=2 B");
  ASSERT_NE(full, std::string::npos);
  ASSERT_NE(briefTable, std::string::npos) << html;
  EXPECT_LT(full, briefTable);
  EXPECT_LT(briefTable, brief);
  EXPECT_EQ(html.find("<td class=\"n\">2</td><td class=\"cfg\">"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.substr(brief - 4, 4), "<tr>");
}

TEST(TuneHtmlTest, TheTopTableHasTheNoise) {
  TuneSearchResult r;
  r.results = {result(1, 8, 0, MStatus::Ok, 5000)};
  r.results[0].measurement.noise = 0.0125;
  r.best = 0;
  std::string html = renderTuneHtml(info(), space(), r, 10);
  EXPECT_NE(html.find("<th>median</th><th>noise</th>"), std::string::npos);
  EXPECT_NE(html.find("5.00 us</td><td class=\"n\">1.25%</td>"),
            std::string::npos)
      << html;
}

TEST(TuneHtmlTest, OneParameterHasNoHeatmapAndNothingPassedIsSaid) {
  TuneSpace s;
  s.parameters = {{"X", {1, 2}, TuneApply::Define, "kernel.toml:1:1"}};
  TuneSearchResult r;
  TuneResult failed;
  failed.values = {{"X", 1}};
  failed.measurement.status = MStatus::CompileError;
  failed.measurement.message = "no";
  r.results = {failed};
  std::string html = renderTuneHtml(info(), s, r, 10);
  EXPECT_EQ(count(html, "class=\"tune-chart\""), 1u);
  EXPECT_EQ(count(html, "class=\"tune-heatmap\""), 0u);
  EXPECT_NE(html.find("No configuration passed"), std::string::npos);
  EXPECT_EQ(count(html, "<rect class=\"bar failed\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"bar unmeasured\""), 1u);
  // Two parameters, nothing passed: the heatmap has no time scale.
  html =
      renderTuneHtml(info(), space(), {{result(1, 8, 0, MStatus::Error)}}, 10);
  EXPECT_EQ(count(html, "class=\"tune-heatmap\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"cell failed\""), 1u);
  EXPECT_EQ(html.find("tune-heat\""), std::string::npos);
  EXPECT_NE(html.find("no pair of values has a full time"), std::string::npos);
}

} // namespace
} // namespace kb::workbench
