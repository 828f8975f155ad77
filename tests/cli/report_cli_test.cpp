//===- tests/cli/report_cli_test.cpp - `report` and `compare` end to end --===//
//
// Runs the built kernel-bench on bench.json files made from synthetic
// BenchReport values (through the model and its writer), and hands the
// formats to the real consumers: Google Benchmark's compare.py (Debian
// libbenchmark-tools), junitparser (python3-junitparser) and headless
// Chromium.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"
#include "common/process.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/compare_json.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/terminal_text.h"
#include "common/test_util.h"

#include <sys/stat.h>

#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace kb::report;
using kb::test::CliRun;

namespace {

class ReportCliTest : public kb::test::KernelBenchTest {
protected:
  ReportCliTest() : KernelBenchTest("kb_report_cli") {}

  /// Writes a report of |names| (candidate only, |samples| samples, medians
  /// scaled by |scale|) to tmp_/|file| and returns its path.
  fs::path write(const std::string &file, double scale, double noise,
                 uint64_t seed, uint32_t samples = 30,
                 std::vector<std::string> names = {"copy", "saxpy"},
                 std::string device = "Synthetic GPU") {
    SyntheticSpec spec = scaledSpec(names, scale, noise, seed, samples);
    spec.deviceName = device;
    return writeReport(file, makeSyntheticReport(spec));
  }
  fs::path writeReport(const std::string &file, const BenchReport &r) {
    fs::path path = tmp_ / file;
    kb::Status s = writeBenchJson(path, r);
    EXPECT_TRUE(s.ok()) << s.message();
    return path;
  }
  fs::path writeText(const std::string &file, const std::string &text) {
    fs::path path = tmp_ / file;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  /// A report with every kind of row.
  BenchReport mixed() { return makeMixedReport(12); }
  CliRun compare(std::vector<std::string> args, kb::test::EnvVars env = {}) {
    args.insert(args.begin(), "compare");
    return run(args, env);
  }
};

/// Runs |argv| with a timeout; fails the test when it cannot start.
kb::ProcessResult runTool(std::vector<std::string> argv,
                          int timeoutSeconds = 120) {
  kb::ProcessOptions options;
  options.argv = std::move(argv);
  options.timeout = std::chrono::seconds(timeoutSeconds);
  auto result = kb::runProcess(options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? *result : kb::ProcessResult{};
}

std::string script(const char *name) {
  return std::string(KB_SOURCE_DIR) + "/tests/cli/report/" + name;
}

TEST_F(ReportCliTest, RegeneratesEveryFormat) {
  fs::path bench = writeReport("bench.json", mixed());
  CliRun r = run({"report", bench.string(), "-o", (tmp_ / "all").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char *name :
       {"gbench.json", "report.md", "report.csv", "junit.xml", "report.html"})
    EXPECT_TRUE(fs::is_regular_file(tmp_ / "all" / name)) << name;
  EXPECT_FALSE(fs::exists(tmp_ / "all" / "bench.json"));
  r = run({"report", bench.string(), "--format", "md,csv", "-o",
           (tmp_ / "some").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file(tmp_ / "some" / "report.md"));
  EXPECT_FALSE(fs::exists(tmp_ / "some" / "junit.xml"));
  // Default directory: next to the bench.json.
  ASSERT_EQ(run({"report", bench.string(), "--format", "md"}).exitCode, 0);
  EXPECT_TRUE(fs::is_regular_file(tmp_ / "report.md"));
  r = run({"report", bench.string(), "--format", "pdf"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("unknown format 'pdf'"), std::string::npos);
}

TEST_F(ReportCliTest, GoogleBenchmarkComparePyReadsGBenchJson) {
  if (!fs::is_regular_file(KB_GBENCH_COMPARE_PY))
    GTEST_SKIP() << "/usr/share/benchmark/compare.py is missing: install "
                    "Debian's libbenchmark-tools (scripts/setup.sh)";
  if (runTool({KB_SYSTEM_PYTHON3, "-c", "import scipy, numpy"}).exitCode != 0)
    GTEST_SKIP() << KB_SYSTEM_PYTHON3
                 << " lacks scipy/numpy, which compare.py needs: install "
                    "python3-scipy python3-numpy (scripts/setup.sh)";
  fs::path base = write("base.json", 1.0, 0.01, 1);
  fs::path slower = write("new.json", 1.25, 0.01, 2);
  ASSERT_EQ(run({"report", base.string(), "--format", "gbench", "-o",
                 (tmp_ / "b").string()})
                .exitCode,
            0);
  ASSERT_EQ(run({"report", slower.string(), "--format", "gbench", "-o",
                 (tmp_ / "n").string()})
                .exitCode,
            0);
  fs::path diff = tmp_ / "diff.json";
  auto py =
      runTool({KB_SYSTEM_PYTHON3, KB_GBENCH_COMPARE_PY, "-d", diff.string(),
               "benchmarks", (tmp_ / "b" / "gbench.json").string(),
               (tmp_ / "n" / "gbench.json").string()});
  ASSERT_TRUE(py.succeeded())
      << py.describe() << "\n"
      << py.stdoutText << py.stderrText
      << "\n(compare.py needs python3-scipy and python3-numpy: "
         "scripts/setup.sh installs them)";
  nlohmann::json j = kb::test::readJsonFile(diff);
  size_t medians = 0;
  bool geomean = false;
  for (const auto &b : j) {
    std::string name = b["name"];
    if (name == "OVERALL_GEOMEAN") {
      geomean = true;
      EXPECT_NEAR(b["measurements"][0]["time"].get<double>(), 0.25, 0.03);
    }
    if (name.size() > 7 && name.substr(name.size() - 7) == "_median") {
      ++medians;
      EXPECT_NEAR(b["measurements"][0]["time"].get<double>(), 0.25, 0.03)
          << name;
    }
    if (b["run_type"] == "iteration")
      EXPECT_EQ(b["measurements"].size(), 30u) << name;
  }
  EXPECT_EQ(medians, 2u);
  EXPECT_TRUE(geomean);
  // Its U test ran on the repetitions (30 per benchmark) and found them
  // different.
  EXPECT_NE(py.stdoutText.find("U Test"), std::string::npos) << py.stdoutText;
}

TEST_F(ReportCliTest, JUnitParserReadsJUnitXml) {
  fs::path bench = writeReport("bench.json", mixed());
  ASSERT_EQ(run({"report", bench.string(), "--format", "junit"}).exitCode, 0);
  auto py = runTool({KB_SYSTEM_PYTHON3, script("read_junit.py"),
                     (tmp_ / "junit.xml").string()});
  if (py.exitCode == 77)
    GTEST_SKIP() << py.stdoutText;
  ASSERT_TRUE(py.succeeded()) << py.stdoutText << py.stderrText;
  nlohmann::json j = nlohmann::json::parse(py.stdoutText);
  EXPECT_EQ(j["tests"], 8);
  EXPECT_EQ(j["failures"], 2);
  EXPECT_EQ(j["skipped"], 1);
  std::map<std::string, std::string> results;
  for (const auto &c : j["cases"])
    results[c["classname"].get<std::string>() + "/" +
            c["name"].get<std::string>()] =
        c["result"].get<std::string>() + ":" + c["type"].get<std::string>();
  EXPECT_EQ(results["kernel-bench.saxpy/candidate"], "passed:");
  EXPECT_EQ(results["kernel-bench.wrong/candidate"], "failure:INCORRECT");
  EXPECT_EQ(results["kernel-bench.hang/(benchmark)"], "failure:ERROR");
  EXPECT_EQ(results["kernel-bench.big/(benchmark)"], "skipped:");
}

TEST_F(ReportCliTest, ChromiumRendersTheHtmlReport) {
  fs::path bench = writeReport("bench.json", mixed());
  ASSERT_EQ(run({"report", bench.string(), "--format", "html"}).exitCode, 0);
  // At a laptop's 1280 px and a phone's 390 px: screenshots, nothing wider
  // than the window (the table scrolls in its own box, the charts scale),
  // no chart label cut on the left.
  auto check =
      runTool({KB_SYSTEM_PYTHON3, script("check_html_render.py"),
               (tmp_ / "report.html").string(), (tmp_ / "chromium").string(),
               "--width", "1280", "--width", "390"},
              300);
  if (check.exitCode == 77)
    GTEST_SKIP() << check.stdoutText;
  EXPECT_EQ(check.exitCode, 0) << check.stdoutText << check.stderrText;
  EXPECT_TRUE(fs::exists(tmp_ / "chromium/screenshot-390.png"));
  // The layout check can fail: a page wider than a phone.
  fs::path wide = writeText(
      "wide.html", "<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
                   "</head><body><h1>x</h1><div style=\"width:900px;"
                   "height:40px;background:#333\"></div></body></html>");
  check =
      runTool({KB_SYSTEM_PYTHON3, script("check_html_render.py"), wide.string(),
               (tmp_ / "chromium-wide").string(), "--width", "390"},
              150);
  EXPECT_EQ(check.exitCode, 1) << check.stdoutText;
  EXPECT_NE(check.stdoutText.find("does not fit"), std::string::npos)
      << check.stdoutText;
  // The checker itself catches a console error (it can fail).
  fs::path bad = writeText("bad.html", "<!DOCTYPE html><html><head>"
                                       "<meta charset=\"utf-8\"></head><body>"
                                       "<h1>x</h1><script>console.error("
                                       "'probe')</script></body></html>");
  check = runTool({KB_SYSTEM_PYTHON3, script("check_html_render.py"),
                   bad.string(), (tmp_ / "chromium-bad").string()},
                  150);
  EXPECT_EQ(check.exitCode, 1) << check.stdoutText;
  EXPECT_NE(check.stdoutText.find("probe"), std::string::npos);
}

/// The fixed corpus of hostile names (formula starters, markup, script and
/// handler injections that would log to the console, control characters,
/// U+FFFE/U+FFFF, bidi overrides) as benchmark names, reasons and the
/// device, through the built binary and into the real consumers: Python's
/// csv reads every row whole with no formula cell, junitparser reads every
/// test case, and headless Chromium renders report.html with no console
/// message (no injected script ran). Names that are not UTF-8 cannot reach
/// a bench.json (its reader refuses them), so they are left out here.
TEST_F(ReportCliTest, AHostileCorpusStaysValidAndInertInEveryConsumer) {
  std::vector<std::string> corpus;
  for (const std::string &name : hostileNameCorpus()) {
    uint32_t cp = 0;
    size_t i = 0;
    while (i < name.size() && name[i] != '\0') {
      size_t n = kb::decodeUtf8(name, i, cp);
      if (n == 0)
        break;
      i += n;
    }
    if (i == name.size())
      corpus.push_back(name);
  }
  ASSERT_GT(corpus.size(), 40u);
  SyntheticSpec spec;
  for (size_t i = 0; i < corpus.size(); ++i) {
    SyntheticBenchmark b;
    b.name = corpus[i] + "#" + std::to_string(i);
    b.status = i % 4 == 1 ? BenchStatus::Incorrect : BenchStatus::Ok;
    spec.benchmarks.push_back(b);
  }
  spec.deviceName = corpus[corpus.size() / 2];
  BenchReport report = makeSyntheticReport(spec);
  for (size_t i = 0; i < report.benchmarks.size(); ++i)
    if (report.benchmarks[i].status != BenchStatus::Ok)
      report.benchmarks[i].reason = corpus[(i * 7) % corpus.size()];
  fs::path bench = writeReport("hostile.json", report);
  CliRun r = run({"report", bench.string(), "--format", "csv,junit,html", "-o",
                  (tmp_ / "hostile").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;

  auto csv = runTool({KB_SYSTEM_PYTHON3, script("check_csv.py"),
                      (tmp_ / "hostile" / "report.csv").string()});
  EXPECT_EQ(csv.exitCode, 0) << csv.stdoutText << csv.stderrText;
  nlohmann::json names = nlohmann::json::parse(csv.stdoutText.substr(
      csv.stdoutText.rfind('\n', csv.stdoutText.size() - 2) + 1));
  // One row per variant: each benchmark has a candidate and a reference.
  EXPECT_EQ(names.size(), 2 * corpus.size());

  auto junit = runTool({KB_SYSTEM_PYTHON3, script("read_junit.py"),
                        (tmp_ / "hostile" / "junit.xml").string()});
  if (junit.exitCode != 77) {
    ASSERT_EQ(junit.exitCode, 0) << junit.stdoutText << junit.stderrText;
    nlohmann::json j = nlohmann::json::parse(junit.stdoutText);
    EXPECT_EQ(j["cases"].size(), 2 * corpus.size()) << junit.stdoutText;
  }
  auto html = runTool({KB_SYSTEM_PYTHON3, script("check_html_render.py"),
                       (tmp_ / "hostile" / "report.html").string(),
                       (tmp_ / "chromium").string()},
                      150);
  if (html.exitCode != 77)
    EXPECT_EQ(html.exitCode, 0) << html.stdoutText << html.stderrText;
  if (junit.exitCode == 77 || html.exitCode == 77)
    GTEST_SKIP() << "CSV checked; " << junit.stdoutText << html.stdoutText;
}

TEST_F(ReportCliTest, ComparePreparedPairs) {
  fs::path base = write("base.json", 1.0, 0.01, 1);
  struct Case {
    const char *name;
    double scale, noise;
    uint32_t samples;
    const char *verdict;
    int exitCode;
  } cases[] = {{"faster", 0.8, 0.01, 30, "FASTER", 0},
               {"slower", 1.2, 0.01, 30, "SLOWER", 1},
               {"same", 1.0, 0.01, 30, "SAME", 0}};
  for (const Case &c : cases) {
    fs::path fresh =
        write(std::string(c.name) + ".json", c.scale, c.noise, 7, c.samples);
    CliRun r = compare({base.string(), fresh.string()});
    EXPECT_EQ(r.exitCode, c.exitCode) << c.name << "\n" << r.output;
    EXPECT_NE(
        r.output.find(std::string("| copy/candidate/cold  | ") + c.verdict),
        std::string::npos)
        << c.name << "\n"
        << r.output;
    EXPECT_NE(r.output.find("geomean of new/base"), std::string::npos);
  }
  // Too few samples to judge (a change within 30 % noise is SAME now: the
  // band is at least k x the rows' own noise).
  fs::path noisyBase = write("noisy-base.json", 1.0, 0.3, 1, 5);
  fs::path noisy = write("noisy.json", 1.03, 0.3, 2, 5);
  CliRun r = compare({noisyBase.string(), noisy.string()});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("INCONCLUSIVE"), std::string::npos) << r.output;
  r = compare(
      {noisyBase.string(), noisy.string(), "--fail-on", "inconclusive"});
  EXPECT_EQ(r.exitCode, 3) << r.output;
  // A regression wins over inconclusive.
  fs::path slower = tmp_ / "slower.json";
  r = compare({base.string(), slower.string(), "--fail-on", "inconclusive"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  // The gate's log names the regression in one line.
  EXPECT_NE(r.output.find("regression: copy/candidate/cold is SLOWER"),
            std::string::npos)
      << r.output;
  // Report only: the same verdicts, exit 0.
  r = compare({base.string(), slower.string(), "--fail-on", "never"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("SLOWER"), std::string::npos) << r.output;
}

TEST_F(ReportCliTest, CompareListsAndRefusesWhatItCannotPair) {
  fs::path a = write("a.json", 1, 0.01, 1, 20, {"x", "y"});
  fs::path b = write("b.json", 1, 0.01, 2, 20, {"y", "z"});
  CliRun r = compare({a.string(), b.string()});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("only in BASE (1): x/candidate/cold"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("only in NEW (1): z/candidate/cold"),
            std::string::npos);
  fs::path disjoint = write("d.json", 1, 0.01, 2, 20, {"p", "q"});
  r = compare({a.string(), disjoint.string()});
  EXPECT_EQ(r.exitCode, 4) << r.output;
  EXPECT_NE(r.output.find("no benchmark in common"), std::string::npos);
  fs::path other = write("o.json", 1, 0.01, 2, 20, {"x", "y"}, "Other GPU");
  r = compare({a.string(), other.string()});
  EXPECT_EQ(r.exitCode, 4) << r.output;
  EXPECT_NE(r.output.find("different devices"), std::string::npos);
  r = compare({a.string(), other.string(), "--allow-different-devices"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST_F(ReportCliTest, CompareRefusesBadReportsWithExit4) {
  fs::path good = write("good.json", 1, 0.01, 1);
  std::string text = kb::test::readFile(good);
  BenchReport newer = makeSyntheticReport({{{"copy"}}, 10, 1});
  newer.schemaVersion = kBenchSchemaVersion + 1;
  std::string nan = text;
  nan.replace(nan.find("\"peak_copy_gbps\": 100.0"), 23,
              "\"peak_copy_gbps\": NaN");
  std::string binary = text;
  binary[binary.find("Synthetic")] = '\xfe';
  struct Case {
    fs::path file;
    const char *message;
  } cases[] = {
      {writeText("gbench.json", R"({"context": {}, "benchmarks": []})"),
       "not a kernel-bench bench report"},
      {writeReport("newer.json", newer), "newer than this kernel-bench reads"},
      {writeText("truncated.json", text.substr(0, text.size() / 3)),
       "truncated"},
      {writeText("binary.json", binary), "not UTF-8"},
      {writeText("nan.json", nan), "NaN and Infinity are not JSON"},
      {tmp_ / "missing.json", "cannot read"},
  };
  for (const Case &c : cases) {
    CliRun r = compare({good.string(), c.file.string()});
    EXPECT_EQ(r.exitCode, 4) << c.file << "\n" << r.output;
    EXPECT_NE(r.output.find(c.file.filename().string()), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    r = run({"report", c.file.string(), "-o", (tmp_ / "bad").string()});
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "bad"));
}

// A time no clock can measure is a corrupt report, never a verdict: a
// negative sample made a row FASTER by 5100 %, and a denormal reference
// sample an anchored ratio of NaN.
TEST_F(ReportCliTest, CompareRefusesImpossibleTimesWithExit4) {
  fs::path base = write("base.json", 1.0, 0.01, 1);
  for (double bad : {-5100.0, 0.0, 5e-324, 1e-4, 1e300}) {
    SyntheticSpec spec = scaledSpec({"copy", "saxpy"}, 1.0, 0.01, 2, 30);
    spec.deviceName = "Synthetic GPU";
    BenchReport forged = makeSyntheticReport(spec);
    forged.benchmarks[0].variants[0].timings[0].samples[3].gpuNs = bad;
    fs::path path = writeReport("forged.json", forged);
    CliRun r = compare({base.string(), path.string()});
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("expected a time in ns from 0.001"),
              std::string::npos)
        << r.output;
  }
}

TEST_F(ReportCliTest, CompareThresholdAndStepSummary) {
  fs::path base = write("base.json", 1.0, 0.01, 1);
  fs::path fresh = write("new.json", 1.05, 0.01, 2);
  CliRun r = compare({base.string(), fresh.string(), "--threshold", "2"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean 2%?"), std::string::npos);
  // The one form every error has.
  EXPECT_NE(r.output.find("kernel-bench compare: error: --threshold: "),
            std::string::npos)
      << r.output;
  // 5 % slower: SLOWER at 2 %, SAME or INCONCLUSIVE at 10 %.
  fs::path summary = tmp_ / "summary.md";
  r = compare({base.string(), fresh.string()},
              {{"GITHUB_STEP_SUMMARY", summary.string()}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  r = compare({base.string(), fresh.string(), "--threshold", "10%"},
              {{"GITHUB_STEP_SUMMARY", summary.string()}});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  r = compare({base.string(), fresh.string(), "--threshold", "0.1"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::string md = kb::test::readFile(summary);
  size_t appended = 0;
  for (size_t at = md.find("## kernel-bench compare"); at != std::string::npos;
       at = md.find("## kernel-bench compare", at + 1))
    ++appended;
  EXPECT_EQ(appended, 2u) << md;
  EXPECT_NE(md.find("SLOWER"), std::string::npos);
}

// --json: stdout is one JSON document, read back by the project's reader
// and by Python's json; stderr, the exit code and $GITHUB_STEP_SUMMARY are
// those of the Markdown run.
TEST_F(ReportCliTest, CompareJsonIsOneDocumentOnStdout) {
  fs::path base = write("base.json", 1.0, 0.01, 1);
  fs::path slower = write("slower.json", 1.2, 0.01, 2);
  fs::path summary = tmp_ / "summary.md";
  kb::ProcessOptions options;
  options.argv = {kb::test::kernelBenchBinary(),
                  "compare",
                  "--json",
                  base.string(),
                  slower.string(),
                  "--threshold",
                  "5%"};
  options.env =
      kb::test::withoutCiEnv({{"GITHUB_STEP_SUMMARY", summary.string()}});
  options.timeout = std::chrono::seconds(120);
  kb::StatusOr<kb::ProcessResult> r = kb::runProcess(options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exitCode, 1) << r->stderrText;
  kb::StatusOr<CompareDocument> d = parseCompareJson(r->stdoutText, "stdout");
  ASSERT_TRUE(d.ok()) << d.status().message() << "\n" << r->stdoutText;
  EXPECT_DOUBLE_EQ(d->options.threshold, 0.05);
  EXPECT_EQ(d->options.failOn, "slower");
  ASSERT_EQ(d->rows.size(), 2u);
  EXPECT_EQ(d->rows[0].id, "copy/candidate/cold");
  EXPECT_EQ(d->rows[0].verdict, Verdict::Slower);
  EXPECT_EQ(d->totals.slower, 2u);
  EXPECT_TRUE(d->totals.regression);
  EXPECT_EQ(r->stdoutText.find("## kernel-bench compare"), std::string::npos);
  EXPECT_NE(r->stderrText.find("regression: copy/candidate/cold is SLOWER"),
            std::string::npos)
      << r->stderrText;
  EXPECT_NE(kb::test::readFile(summary).find("## kernel-bench compare"),
            std::string::npos);
  // What a jq-like consumer sees: plain JSON with the documented keys.
  std::string pipeline =
      "GITHUB_STEP_SUMMARY= '" + kb::test::kernelBenchBinary() +
      "' compare --json --fail-on never '" + base.string() + "' '" +
      slower.string() + "' | " + KB_SYSTEM_PYTHON3 +
      " -c 'import json,sys; d=json.load(sys.stdin); "
      "print(d[\"rows\"][1][\"verdict\"], d[\"totals\"][\"slower\"], "
      "d[\"options\"][\"fail_on\"])'";
  kb::ProcessResult py = runTool({"/bin/sh", "-c", pipeline});
  EXPECT_EQ(py.exitCode, 0) << py.stderrText;
  EXPECT_EQ(py.stdoutText, "SLOWER 2 never\n") << py.stderrText;
}

TEST_F(ReportCliTest, HistoryOfBaseReportsWidensANoisyBenchmarksBand) {
  std::vector<std::string> bases = {write("b1.json", 1.00, 0.005, 1).string(),
                                    write("b2.json", 1.06, 0.005, 2).string(),
                                    write("b3.json", 0.95, 0.005, 3).string()};
  fs::path fresh = write("new.json", 1.05, 0.005, 4);
  CliRun one = compare({bases[0], fresh.string()});
  EXPECT_EQ(one.exitCode, 1) << one.output;
  std::vector<std::string> args = bases;
  args.push_back(fresh.string());
  CliRun history = compare(args);
  EXPECT_EQ(history.exitCode, 0) << history.output;
  EXPECT_NE(history.output.find("3 reports"), std::string::npos);
}

} // namespace

namespace {

/// Hostile inputs through the binary: a FIFO, a device or a directory
/// where a report belongs is refused at once (exit 4, the path named),
/// never waited on; a pipe the shell opened is read.
TEST_F(ReportCliTest, InputsThatAreNotRegularFilesAreRefusedAtOnce) {
  fs::path fifo = tmp_ / "f.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::path good = writeReport("good.json", mixed());
  for (std::vector<std::string> args :
       {std::vector<std::string>{"report", fifo.string()},
        {"compare", good.string(), fifo.string()},
        {"merge", fifo.string(), "-o", (tmp_ / "m").string()},
        {"report", "/dev/zero"},
        {"report", tmp_.string()}}) {
    CliRun r = kb::test::runKernelBench(args, {}, std::chrono::seconds(20));
    EXPECT_EQ(r.exitCode, 4) << args[1] << ": " << r.output;
    EXPECT_TRUE(r.output.find("named pipe (FIFO)") != std::string::npos ||
                r.output.find("device file") != std::string::npos ||
                r.output.find("is a directory") != std::string::npos)
        << r.output;
  }
  // What a shell's <(...) and a pipe into `-` look like to kernel-bench.
  std::string kb = kb::test::kernelBenchBinary();
  std::string viaFd =
      "bash -c " +
      kb::testing::shellQuote(kb + " report <(cat " + good.string() + ") -o " +
                              (tmp_ / "fd").string() + " --format md");
  EXPECT_EQ(std::system(viaFd.c_str()), 0);
  EXPECT_TRUE(fs::exists(tmp_ / "fd" / "report.md"));
  std::string viaStdin = "cat " + good.string() + " | " + kb + " report - -o " +
                         (tmp_ / "stdin").string() + " --format csv";
  EXPECT_EQ(std::system(viaStdin.c_str()), 0);
  EXPECT_TRUE(fs::exists(tmp_ / "stdin" / "report.csv"));
}

/// `merge -o s0` with s0/bench.json among the inputs would replace an input
/// with the merge: refused before anything is written (usage, exit 2).
TEST_F(ReportCliTest, MergeRefusesAnOutputThatIsAnInput) {
  fs::create_directories(tmp_ / "s0");
  fs::path input = writeReport("s0/bench.json", mixed());
  std::string before = kb::test::readFile(input);
  CliRun r = run({"merge", input.string(), "-o", (tmp_ / "s0").string()});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("is the input"), std::string::npos) << r.output;
  EXPECT_EQ(kb::test::readFile(input), before);
  EXPECT_FALSE(fs::exists(tmp_ / "s0" / "report.md"));
}

/// A step summary that cannot be written (a full disk: /dev/full) is an
/// error naming it, not a CI page silently without the comparison.
TEST_F(ReportCliTest, AStepSummaryThatCannotBeWrittenIsAnError) {
  fs::path base = write("base.json", 1.0, 0.01, 1);
  CliRun r = compare({base.string(), base.string()},
                     {{"GITHUB_STEP_SUMMARY", "/dev/full"}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("$GITHUB_STEP_SUMMARY: cannot append to "
                          "`/dev/full`: No space left on device"),
            std::string::npos)
      << r.output;
}

/// `bench -o DIR` where nothing can be written fails before measuring.
TEST_F(ReportCliTest, BenchRefusesAnUnwritableOutputBeforeMeasuring) {
  CliRun r = run({"bench", (tmp_ / "no-build").string(), "-o",
                  "/proc/kb-no-such/results"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write into `/proc/kb-no-such/results`"),
            std::string::npos)
      << r.output;
}

} // namespace
