//===- workbench/report/bench_json_test.cpp - bench.json round trips ------===//
#include "common/file_util.h"
#include "runtime/bench/statistics.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/bench_table.h"
#include "workbench/report/report_formats.h"
#include "workbench/report/roofline.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>

#include <type_traits>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace kb::report {
namespace {

/// A report with every optional part present, so a round trip covers each
/// field of the schema.
BenchReport fullReport() {
  BenchReport r = makeMixedReport(12);
  r.interrupted = true;
  r.settings.modes = {TimingMode::Cold, TimingMode::Hot};
  r.settings.budgetSeconds = 120;
  r.environment.smClockMHz = 1980;
  r.environment.defaultSmClockMHz = 1980;
  r.environment.memoryClockMHz = 2619;
  r.environment.throttleReasons = 4;
  r.environment.throttleReasonNames = {"sw-power-cap"};
  r.environment.otherProcesses = {{4242, "python3", uint64_t(1) << 30}};
  r.environment.afterTiming =
      ClocksAfterTiming{1410, 2619, 0x20, {"sw-thermal-slowdown"}};
  r.environment.warnings = {"GPU shared with 1 other process"};
  Variant &v = r.benchmarks[0].variants[0];
  v.resources = ResourceUsage{32, 0, 0, 0, 1024, 1, 368};
  v.timings[0].samples[3].smClockMHz = 1965;
  v.timings[0].discarded = 2;
  Timing hot = v.timings[0];
  hot.mode = TimingMode::Hot;
  hot.dispatchesPerSample = 64;
  v.timings.push_back(hot);
  ProgramResult p;
  p.module = "program.kbm";
  p.entryFunction = "main";
  p.withSubstitutions = v.timings[0];
  p.generatedOnly = r.benchmarks[0].variants[1].timings[0];
  r.program = p;
  PairedComparison paired;
  paired.baselineBuild = "../main-build";
  paired.pairs = 10;
  paired.ratio = 1.25;
  paired.low = 1.2;
  paired.high = 1.3;
  paired.verdict = "SLOWER";
  r.benchmarks[0].paired = {paired};
  r.device.vendorId = 0x10de;
  r.device.uuid = "f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff";
  computeDerived(r);
  return r;
}

std::string render(const BenchReport &r) {
  StatusOr<std::string> text = renderBenchJson(r);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

Status parseError(std::string_view text) {
  StatusOr<BenchReport> r = parseBenchJson(text, "in.json");
  return r.ok() ? okStatus() : r.status();
}

// A copy as fast as the peak probe's own reads within noise of 100 %
// (100.04 % on an H200): no "stayed in L2" warning for that.
TEST(Derived, AboveThePeakMeansClearlyAbove) {
  Derived d;
  EXPECT_FALSE(aboveMeasuredPeak(d)) << "no peak, no warning";
  d.percentOfPeak = 100.04;
  EXPECT_FALSE(aboveMeasuredPeak(d));
  d.percentOfPeak = 103;
  EXPECT_TRUE(aboveMeasuredPeak(d));
}

TEST(BenchJson, RoundTripKeepsEveryField) {
  BenchReport original = fullReport();
  std::string text = render(original);
  StatusOr<BenchReport> parsed = parseBenchJson(text, "bench.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  // Rendering what was read gives the same bytes: nothing was lost.
  EXPECT_EQ(render(*parsed), text);
  EXPECT_TRUE(parsed->interrupted);
  ASSERT_EQ(parsed->benchmarks.size(), 5u);
  const Variant &v = parsed->benchmarks[0].variants[0];
  ASSERT_TRUE(v.resources.has_value());
  EXPECT_EQ(v.resources->registers, 32u);
  EXPECT_EQ(v.timings[1].mode, TimingMode::Hot);
  EXPECT_EQ(v.timings[1].dispatchesPerSample, 64u);
  EXPECT_EQ(v.timings[0].samples[3].smClockMHz, 1965.0);
  EXPECT_FALSE(v.timings[0].samples[2].smClockMHz.has_value());
  EXPECT_EQ(v.timings[0].samples[5].gpuNs,
            original.benchmarks[0].variants[0].timings[0].samples[5].gpuNs);
  EXPECT_EQ(parsed->benchmarks[2].status, BenchStatus::Incorrect);
  EXPECT_EQ(
      parsed->benchmarks[2].variants[0].correctness.firstMismatches[0].actual,
      "nan");
  EXPECT_EQ(parsed->benchmarks[4].reason, "synthetic: skipped");
  ASSERT_TRUE(parsed->program.has_value());
  EXPECT_NEAR(*parsed->program->speedup, 1.5, 0.1);
  EXPECT_EQ(parsed->environment.otherProcesses[0].name, "python3");
  ASSERT_TRUE(parsed->environment.afterTiming.has_value());
  EXPECT_EQ(parsed->environment.afterTiming->smClockMHz, 1410.0);
  EXPECT_EQ(parsed->environment.afterTiming->throttleReasons, 0x20u);
  EXPECT_EQ(parsed->environment.afterTiming->throttleReasonNames,
            std::vector<std::string>{"sw-thermal-slowdown"});
  ASSERT_EQ(parsed->benchmarks[0].paired.size(), 1u);
  EXPECT_EQ(parsed->benchmarks[0].paired[0].verdict, "SLOWER");
  EXPECT_EQ(parsed->benchmarks[0].paired[0].pairs, 10u);
  EXPECT_EQ(parsed->benchmarks[0].paired[0].baselineBuild, "../main-build");
  EXPECT_EQ(parsed->device.uuid, "f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
}

TEST(BenchJson, AfterTimingIsOptional) {
  // Files written before the reading after timing existed have no key;
  // without NVML it is null.
  BenchReport report = fullReport();
  report.environment.afterTiming.reset();
  std::string text = render(report);
  size_t at = text.find("\"after_timing\": null");
  ASSERT_NE(at, std::string::npos) << text;
  StatusOr<BenchReport> none = parseBenchJson(text, "none.json");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->environment.afterTiming.has_value());
  std::string without = text;
  without.erase(at, without.find(',', at) + 1 - at);
  StatusOr<BenchReport> old = parseBenchJson(without, "old.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_FALSE(old->environment.afterTiming.has_value());
}

TEST(BenchJson, PairedIsOptionalAndItsVerdictChecked) {
  // Files written before `paired` existed have no such key: none.
  std::string text = render(fullReport());
  size_t at = text.find("\"paired\": [");
  ASSERT_NE(at, std::string::npos);
  size_t end = text.find(']', at);
  std::string without = text;
  // Drop `"paired": [...],` or `, "paired": [...]` whichever shape it has.
  size_t from = without.rfind(',', at);
  without.erase(from, end + 1 - from);
  StatusOr<BenchReport> old = parseBenchJson(without, "old.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_TRUE(old->benchmarks[0].paired.empty());

  std::string bad = text;
  size_t verdict = bad.find("\"SLOWER\"");
  ASSERT_NE(verdict, std::string::npos);
  bad.replace(verdict, 8, "\"WORSE\"");
  Status s = parseError(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("benchmarks[0].paired[0].verdict"),
            std::string::npos)
      << s.message();
}

TEST(BenchJson, WriterRefusesNonFiniteNumbersNamingTheField) {
  BenchReport r = fullReport();
  r.benchmarks[0].variants[0].timings[0].samples[4].gpuNs = std::nan("");
  StatusOr<std::string> text = renderBenchJson(r);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find(
                "benchmarks[0].variants[0].timings[0].samples.gpu_ns[4]"),
            std::string::npos)
      << text.status().message();
  r = fullReport();
  r.device.peakCopyGBps = INFINITY;
  EXPECT_FALSE(renderBenchJson(r).ok());
}

TEST(BenchJson, WriteIsAtomicAndReadable) {
  auto scratch = kb::TempDir::create(std::filesystem::temp_directory_path(),
                                     "kb_bench_json_test");
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  std::filesystem::path dir = scratch->path();
  BenchReport r = fullReport();
  ASSERT_TRUE(writeBenchJson(dir / "results" / "bench.json", r).ok());
  StatusOr<BenchReport> back = readBenchJson(dir / "results" / "bench.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->benchmarks.size(), r.benchmarks.size());
  // A failed render writes nothing.
  r.benchmarks[0].variants[0].flops = std::nan("");
  EXPECT_FALSE(writeBenchJson(dir / "bad.json", r).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.json"));
  StatusOr<BenchReport> missing = readBenchJson(dir / "none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.json"), std::string::npos);
}

TEST(BenchJson, RefusesNaNAndInfinityTokens) {
  std::string text = render(fullReport());
  std::string needle = "\"peak_copy_gbps\": 100";
  size_t at = text.find(needle);
  ASSERT_NE(at, std::string::npos);
  for (const char *token : {"NaN", "Infinity", "-Infinity"}) {
    std::string bad = text;
    bad.replace(at, needle.size(), std::string("\"peak_copy_gbps\": ") + token);
    Status s = parseError(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("NaN and Infinity are not JSON"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(s.message().rfind("in.json:", 0), 0u) << s.message();
  }
}

TEST(BenchJson, RefusesTruncatedInput) {
  std::string text = render(fullReport());
  for (size_t cut : {size_t(0), size_t(1), text.size() / 2, text.size() - 2}) {
    Status s = parseError(text.substr(0, cut));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("truncated"), std::string::npos)
        << cut << ": " << s.message();
  }
}

TEST(BenchJson, RefusesNonUtf8) {
  std::string text = render(fullReport());
  size_t at = text.find("Synthetic GPU");
  ASSERT_NE(at, std::string::npos);
  for (const char *bytes : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82"}) {
    std::string bad = text;
    bad.replace(at, 1, bytes);
    Status s = parseError(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("not UTF-8"), std::string::npos) << s.message();
  }
  // Valid multi-byte text is fine.
  BenchReport r = fullReport();
  r.device.name = "Gerät \xe2\x82\xac";
  EXPECT_TRUE(parseError(render(r)).ok());
}

TEST(BenchJson, RefusesFilesThatAreNotOurs) {
  Status s = parseError(R"({"context": {}, "benchmarks": []})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a kernel-bench bench report"),
            std::string::npos);
  EXPECT_NE(s.message().find("Google Benchmark"), std::string::npos);
  s = parseError(R"({"schema_version": 1, "jobs": []})");
  EXPECT_NE(s.message().find("build.json"), std::string::npos) << s.message();
  s = parseError("[1, 2]");
  EXPECT_NE(s.message().find("expected a JSON object"), std::string::npos);
}

TEST(BenchJson, RefusesANewerSchema) {
  BenchReport r = fullReport();
  r.schemaVersion = kBenchSchemaVersion + 1;
  Status s = parseError(render(r));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("newer than this kernel-bench reads"),
            std::string::npos)
      << s.message();
}

TEST(BenchJson, NamesTheFieldOfTheWrongType) {
  std::string text = render(fullReport());
  std::string needle = "\"workload\": \"n=1048576\"";
  size_t at = text.find(needle);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, needle.size(), "\"workload\": 7");
  Status s = parseError(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "in.json: benchmarks[0].workload: expected a string, found a "
            "number");
}

// A mismatch map is read back whole, and one whose cells do not fit its
// sizes (the renderers index them by those) is refused, naming the field.
TEST(BenchJson, MismatchMapsRoundTripAndAreChecked) {
  BenchReport original = fullReport();
  const module::MismatchMap &map =
      original.benchmarks[2].variants[0].correctness.mismatchMaps.at(0).map;
  StatusOr<BenchReport> parsed = parseBenchJson(render(original), "bench.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const OutputMap &read =
      parsed->benchmarks[2].variants[0].correctness.mismatchMaps.at(0);
  EXPECT_EQ(read.map.wrong, map.wrong);
  EXPECT_EQ(read.map.maxError, map.maxError);
  EXPECT_EQ(read.map.describeBox(), "rows 0, cols 7-63 of 64 x 64");
  EXPECT_TRUE(
      parsed->benchmarks[0].variants[0].correctness.mismatchMaps.empty());

  BenchReport bad = original;
  bad.benchmarks[2]
      .variants[0]
      .correctness.mismatchMaps[0]
      .map.wrong.pop_back();
  Status s = parseError(render(bad));
  EXPECT_NE(s.message().find("mismatch_maps[0].map"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("expected 4096 cells each"), std::string::npos)
      << s.message();
  bad = original;
  bad.benchmarks[2].variants[0].correctness.mismatchMaps[0].map.cellRows =
      100000;
  EXPECT_NE(parseError(render(bad)).message().find("cell_rows/cell_cols"),
            std::string::npos);
  bad = original;
  bad.benchmarks[2].variants[0].correctness.mismatchMaps[0].map.bottom = 64;
  EXPECT_NE(parseError(render(bad)).message().find("box: outside"),
            std::string::npos);
}

TEST(BenchJson, ASweepPointRoundTripsAndIsAbsentOtherwise) {
  BenchReport original = fullReport();
  original.benchmarks[0].sweep = {"copy", {{"n", 4096}, {"m", 2}}};
  std::string text = render(original);
  size_t at = text.find("\"sweep\": {");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.substr(at, 40).find("\"kernel\": \"copy\""), std::string::npos)
      << text;
  StatusOr<BenchReport> parsed = parseBenchJson(text, "bench.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const bench::SweepPoint &read = parsed->benchmarks[0].sweep;
  EXPECT_EQ(read.kernel, "copy");
  ASSERT_EQ(read.values.size(), 2u);
  EXPECT_EQ(read.values[0], (std::pair<std::string, int64_t>{"n", 4096}));
  EXPECT_EQ(read.values[1], (std::pair<std::string, int64_t>{"m", 2}));
  // Not swept: no key, as in every report written before sweeps.
  EXPECT_TRUE(parsed->benchmarks[1].sweep.empty());
  EXPECT_EQ(render(fullReport()).find("\"sweep\""), std::string::npos);
  // A value that is not an integer is refused, naming the field.
  std::string bad = text;
  bad.replace(bad.find("4096"), 4, "\"big\"");
  StatusOr<BenchReport> refused = parseBenchJson(bad, "bench.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sweep"), std::string::npos)
      << refused.status().message();
}

TEST(BenchJson, CountersRoundTripAndAreAbsentOtherwise) {
  BenchReport original = fullReport();
  original.settings.counters = true;
  hal::KernelCounters c;
  c.dramBytesRead = 8388608;
  c.dramBytesWritten = 4194304;
  c.achievedOccupancyPct = 87.5;
  c.smThroughputPct = 12.25;
  c.gpuTimeNs = 9100;
  c.kernels = 1;
  c.passes = 8;
  original.benchmarks[0].variants[0].counters = c;
  original.benchmarks[0].variants[1].countersNote = "failed: CUPTI said no";
  std::string text = render(original);
  StatusOr<BenchReport> parsed = parseBenchJson(text, "bench.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->settings.counters);
  const Variant &counted = parsed->benchmarks[0].variants[0];
  ASSERT_TRUE(counted.counters);
  EXPECT_EQ(counted.counters->dramBytesRead, 8388608);
  EXPECT_EQ(counted.counters->dramBytesWritten, 4194304);
  EXPECT_EQ(counted.counters->achievedOccupancyPct, 87.5);
  EXPECT_EQ(counted.counters->smThroughputPct, 12.25);
  EXPECT_EQ(counted.counters->gpuTimeNs, 9100);
  EXPECT_EQ(counted.counters->kernels, 1u);
  EXPECT_EQ(counted.counters->passes, 8u);
  EXPECT_EQ(parsed->benchmarks[0].variants[1].countersNote,
            "failed: CUPTI said no");
  // Without --counters: no key, as in every report written before it.
  std::string plain = render(fullReport());
  EXPECT_EQ(plain.find("\"counters"), std::string::npos);
  // A counter of the wrong type is refused, naming the field.
  std::string bad = text;
  bad.replace(bad.find("87.5"), 4, "\"high\"");
  StatusOr<BenchReport> refused = parseBenchJson(bad, "bench.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("achieved_occupancy_pct"),
            std::string::npos)
      << refused.status().message();
}

TEST(BenchJson, RefusesDuplicateBenchmarkNames) {
  BenchReport r = fullReport();
  r.benchmarks[1].name = r.benchmarks[0].name;
  Status s = parseError(render(r));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("appears twice"), std::string::npos);
}

TEST(BenchJson, RefusesSampleArraysOfDifferentLengths) {
  std::string text = render(fullReport());
  size_t at = text.find("\"host_ns\": [");
  ASSERT_NE(at, std::string::npos);
  size_t comma = text.find(',', at);
  text.erase(at + 12, comma - (at + 12) + 1); // drop the first host sample
  Status s = parseError(text);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("one entry per sample"), std::string::npos)
      << s.message();
}

TEST(Summary, MatchesNumpyDefinitions) {
  Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75); // numpy.quantile(.., 0.25)
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
  EXPECT_NEAR(s.stdev, 1.2909944487, 1e-9); // ddof=1
  EXPECT_NEAR(s.relativeStdev, 1.2909944487 / 2.5, 1e-9);
  EXPECT_EQ(summarize({}).count, 0u);
}

TEST(Summary, IsTheEngineRuleOnTheEngineTypes) {
  // One set of result types: the report holds what the engine measured as
  // it is, so nothing is copied field by field between them.
  static_assert(std::is_same_v<Timing, bench::Timing>);
  static_assert(std::is_same_v<Sample, bench::Sample>);
  static_assert(std::is_same_v<Summary, bench::Summary>);
  static_assert(std::is_same_v<Variant, bench::Variant>);
  static_assert(std::is_same_v<StopReason, bench::StopReason>);
  // Quartiles by interpolation, where nearest-rank would differ.
  Summary r = summarize({7, 1, 9, 4, 4.5, 12, 3, 8});
  EXPECT_EQ(r.count, 8u);
  EXPECT_DOUBLE_EQ(r.median, 5.75); // numpy.median
  EXPECT_DOUBLE_EQ(r.q1, 3.75);     // numpy.percentile(x, 25)
  EXPECT_DOUBLE_EQ(r.q3, 8.25);     // numpy.percentile(x, 75)
}

TEST(Derived, FiguresFollowFromSamplesBytesAndPeak) {
  BenchReport r = fullReport();
  const Variant &candidate = r.benchmarks[0].variants[0];
  const Timing &t = candidate.timings[0];
  ASSERT_TRUE(t.derived.gbPerSecond.has_value());
  EXPECT_DOUBLE_EQ(*t.derived.gbPerSecond,
                   double(*candidate.bytesMoved) / t.summary.median);
  EXPECT_DOUBLE_EQ(*t.derived.percentOfPeak, *t.derived.gbPerSecond);
  EXPECT_NEAR(*t.derived.speedupVsReference, 1.5, 0.1);
  EXPECT_FALSE(t.derived.suspiciousSpeedup);
  EXPECT_FALSE(r.benchmarks[0]
                   .variants[1]
                   .timings[0]
                   .derived.speedupVsReference.has_value());
  // A candidate 20x faster than its reference is flagged.
  for (Sample &s : r.benchmarks[0].variants[0].timings[0].samples)
    s.gpuNs /= 20;
  computeDerived(r);
  EXPECT_TRUE(r.benchmarks[0].variants[0].timings[0].derived.suspiciousSpeedup);
}

// Under the roofline: at an intensity below the ridge point (peak FLOP/s /
// peak bandwidth) the memory ceiling is the lower, above it the compute
// one; the row is a percentage of the lower. Without the FMA peak, none.
TEST(Derived, TheRooflineSaysTheNearerCeilingAndHowClose) {
  BenchReport r = fullReport(); // 100 GB/s, 1000 GFLOP/s: ridge at 10
  Variant &v = r.benchmarks[0].variants[0];
  double median = v.timings[0].summary.median;
  v.bytesMoved = 1000;
  v.flops = 1000; // 1 FLOP/byte: memory ceiling 100 GFLOP/s
  computeDerived(r);
  const Derived &memory = v.timings[0].derived;
  EXPECT_EQ(memory.bound, "memory");
  EXPECT_NEAR(*memory.percentOfRoofline, 1000 / median / 100 * 100, 1e-9);
  v.flops = 100000; // 100 FLOP/byte: compute ceiling 1000 GFLOP/s
  computeDerived(r);
  EXPECT_EQ(v.timings[0].derived.bound, "compute");
  EXPECT_NEAR(*v.timings[0].derived.percentOfRoofline,
              100000 / median / 1000 * 100, 1e-9);
  std::vector<std::string> lines = rooflineLines(r, 10);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("100 FLOP/byte, compute-bound: "), std::string::npos)
      << lines[0];
  std::string html = rooflineSection(r);
  EXPECT_NE(html.find("class=\"roofline-point\""), std::string::npos);
  r.device.peakFmaGflops.reset();
  computeDerived(r);
  EXPECT_TRUE(v.timings[0].derived.bound.empty());
  EXPECT_FALSE(v.timings[0].derived.percentOfRoofline);
  EXPECT_EQ(rooflineSection(r), "");
}

// No work (0 FLOPs) is no point; a report read back that holds hostile
// figures (a zero or enormous peak, an unknown bound) draws nothing it
// cannot place, and never hangs; a row above the compute ceiling is drawn
// inside the chart.
TEST(Derived, TheRooflineSurvivesZeroWorkAndHostileFigures) {
  BenchReport r = fullReport();
  Variant &v = r.benchmarks[0].variants[0];
  v.bytesMoved = 1000;
  v.flops = 0;
  computeDerived(r);
  EXPECT_TRUE(v.timings[0].derived.bound.empty());

  v.flops = 1e9; // far above the 1000 GFLOP/s ceiling at any median
  computeDerived(r);
  ASSERT_EQ(v.timings[0].derived.bound, "compute");
  std::string html = rooflineSection(r);
  size_t cy = html.find("cy=\"");
  ASSERT_NE(cy, std::string::npos);
  EXPECT_GE(std::stod(html.substr(cy + 4)), 0.0) << html;

  for (double peak : {0.0, -1.0, 1e308}) {
    BenchReport hostile = r;
    hostile.device.peakFmaGflops = peak;
    std::string page = rooflineSection(hostile); // returns, whatever it holds
    EXPECT_EQ(page.find("nan"), std::string::npos) << peak;
    EXPECT_EQ(page.find("inf"), std::string::npos) << peak;
  }
  std::string text = render(r);
  const std::string bound = "\"bound\": \"compute\"";
  size_t at = text.find(bound);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, bound.size(), "\"bound\": \"<b>x</b>\"");
  Status bad = parseError(text);
  EXPECT_NE(bad.message().find("bound: expected \"memory\" or \"compute\""),
            std::string::npos)
      << bad.message();
}

} // namespace
// A cached copy peak of 1e-300 made percent_of_peak infinite, and strict
// JSON then refused the whole report after everything was measured.
TEST(Derived, ANonFiniteFigureIsUnknownAndTheReportIsStillWritten) {
  BenchReport r = fullReport();
  r.device.peakCopyGBps = std::numeric_limits<double>::denorm_min();
  computeDerived(r);
  const Timing &t = r.benchmarks[0].variants[0].timings[0];
  EXPECT_FALSE(t.derived.percentOfPeak.has_value());
  EXPECT_TRUE(t.derived.gbPerSecond.has_value());
  bool warned = false;
  for (const std::string &w : r.environment.warnings)
    warned |= w.find("% of peak is not finite") != std::string::npos;
  EXPECT_TRUE(warned);
  StatusOr<std::string> text = renderBenchJson(r);
  ASSERT_TRUE(text.ok()) << text.status().message();
}

// matmul 512^3 under --quick took one sample per mode, and the table said
// "± 0" and "0.00%" noise without a word.
TEST(BenchTable, ATimingUnderTheMinimumSaysSoAndWhy) {
  BenchReport r = fullReport();
  Timing &t = r.benchmarks[0].variants[0].timings[0];
  t.samples.resize(1);
  t.stopReason = StopReason::Timeout;
  computeDerived(r);
  std::string table = renderBenchTable(r);
  EXPECT_NE(table.find("1 sample(s) < 10: stopped at the time limit"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("1 (-2) !"), std::string::npos) << table;
  EXPECT_EQ(table.find("0.00%"), std::string::npos) << table;
}

// Every human format says why a row stopped short of 10 samples: the time
// limit or the budget, not only the table.
TEST(BenchTable, EveryFormatSaysWhyARowStoppedShort) {
  BenchReport r = fullReport();
  Timing &t = r.benchmarks[0].variants[0].timings[0];
  t.samples.resize(3);
  t.stopReason = StopReason::Budget;
  computeDerived(r);
  // Escaped for each format: `<` is an entity in all three.
  const std::string why = "3 sample(s) &lt; 10: stopped when the run";
  EXPECT_NE(renderMarkdown(r).find(why), std::string::npos)
      << renderMarkdown(r);
  EXPECT_NE(renderMarkdown(r).find("--budget ran out"), std::string::npos);
  EXPECT_NE(renderHtml(r).find(why), std::string::npos);
  EXPECT_NE(renderJUnit(r).find(why), std::string::npos) << renderJUnit(r);
  EXPECT_NE(renderBenchTable(r).find("3 sample(s) < 10: stopped when the "
                                     "run's --budget ran out"),
            std::string::npos);
  t.stopReason = StopReason::Timeout;
  EXPECT_NE(renderBenchTable(r).find("stopped at the time limit (--timeout"),
            std::string::npos);
}

// A report where nothing reached a device (every benchmark skipped) says so
// in every human format, instead of "device:  ()".
TEST(BenchTable, NoDeviceIsSaidNotLeftEmpty) {
  BenchReport r = fullReport();
  r.device = DeviceInfo{};
  computeDerived(r);
  const std::string said = "no device (no benchmark reached one)";
  for (const std::string &text :
       {renderBenchTable(r), renderMarkdown(r), renderHtml(r)}) {
    EXPECT_NE(text.find(said), std::string::npos) << text;
    EXPECT_EQ(text.find(" ()"), std::string::npos) << text;
    EXPECT_EQ(text.find("Device: "), std::string::npos) << text;
  }
  EXPECT_NE(renderBenchTable(r).find("device: " + said), std::string::npos);
}

} // namespace kb::report
