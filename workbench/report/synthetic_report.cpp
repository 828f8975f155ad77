//===- workbench/report/synthetic_report.cpp - Reports for tests ----------===//
#include "workbench/report/synthetic_report.h"

#include <cmath>
#include <cstdio>
#include <random>

namespace kb::report {

namespace {

/// Samples around |medianNs| with a right-skewed tail, as GPU timings have:
/// a log-normal whose median is |medianNs|.
Timing syntheticTiming(double medianNs, double relativeNoise, uint32_t count,
                       std::mt19937_64 &rng) {
  Timing t;
  t.mode = TimingMode::Cold;
  std::normal_distribution<double> normal(0.0, relativeNoise);
  for (uint32_t i = 0; i < count; ++i) {
    Sample s;
    s.gpuNs = medianNs * std::exp(normal(rng));
    s.hostNs = s.gpuNs + 4000.0;
    t.samples.push_back(s);
  }
  t.noiseTargetMet = relativeNoise <= 0.005;
  t.stopReason =
      t.noiseTargetMet ? StopReason::NoiseTarget : StopReason::MinimumSamples;
  return t;
}

Variant syntheticVariant(const std::string &name, VariantRole role,
                         double medianNs, double noise, uint32_t samples,
                         std::mt19937_64 &rng) {
  Variant v;
  v.name = name;
  v.role = role;
  v.target = "vulkan:spv1.3";
  v.objectSha256 = std::string(64, role == VariantRole::Reference ? 'b' : 'a');
  v.loadMs = 1.25;
  v.correctness.status = role == VariantRole::Reference
                             ? CorrectnessStatus::NotChecked
                             : CorrectnessStatus::Correct;
  v.correctness.seeds = {1, 2, 3};
  v.bytesMoved = static_cast<uint64_t>(medianNs * 50); // ~50 GB/s
  v.flops = medianNs * 10;
  v.timings.push_back(syntheticTiming(medianNs, noise, samples, rng));
  return v;
}

} // namespace

std::vector<SyntheticBenchmark> syntheticBenchmarks(size_t count,
                                                    double relativeNoise) {
  std::vector<SyntheticBenchmark> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "bench_%05zu", i);
    SyntheticBenchmark b;
    b.name = name;
    // 1 us .. 10 ms, log-spaced: a realistic spread of magnitudes.
    b.medianNs =
        1000.0 * std::pow(10.0, 4.0 * static_cast<double>(i % 97) / 96);
    b.relativeNoise = relativeNoise;
    b.withReference = false;
    out.push_back(b);
  }
  return out;
}

SyntheticSpec scaledSpec(const std::vector<std::string> &names, double scale,
                         double relativeNoise, uint64_t seed,
                         uint32_t samples) {
  SyntheticSpec spec;
  double median = 2000;
  for (const std::string &name : names) {
    spec.benchmarks.push_back(
        {name, median * scale, relativeNoise, false, BenchStatus::Ok});
    median *= 5;
  }
  spec.samples = samples;
  spec.seed = seed;
  return spec;
}

BenchReport makeMixedReport(uint32_t samples) {
  SyntheticSpec spec;
  spec.benchmarks = {{"saxpy", 2000, 0.01, true, BenchStatus::Ok},
                     {"reduce|sum", 90000, 0.02, true, BenchStatus::Ok},
                     {"wrong", 500, 0.01, true, BenchStatus::Incorrect},
                     {"hang", 500, 0.01, true, BenchStatus::Error},
                     {"big", 500, 0.01, true, BenchStatus::Skipped}};
  spec.samples = samples;
  return makeSyntheticReport(spec);
}

BenchReport makeSyntheticReport(const SyntheticSpec &spec) {
  std::mt19937_64 rng(spec.seed);
  BenchReport r;
  r.tool.version = "0.1.0";
  r.createdUtc = "2026-12-01T04:00:00Z";
  r.build = {"build/quickstart", std::string(64, 'c')};
  r.settings.quick = true;
  r.settings.quickReason = "synthetic";
  r.device.driver = "vulkan";
  r.device.name = spec.deviceName;
  r.device.type = "discrete-gpu";
  r.device.vendorId = 0x10de;
  r.device.deviceId = 0x2335;
  r.device.uuid = "00112233445566778899aabbccddeeff";
  r.device.driverVersion = "1.0";
  r.device.memoryBytes = uint64_t(80) << 30;
  r.device.l2Bytes = uint64_t(50) << 20;
  r.device.l2Source = L2Source::Table;
  r.device.peakCopyGBps = 100.0;
  r.device.peakFmaGflops = 1000.0;
  for (const SyntheticBenchmark &sb : spec.benchmarks) {
    Benchmark b;
    b.name = sb.name;
    b.moduleFile = "bench/" + sb.name + ".kbm";
    b.executable = sb.name;
    b.exportName = "main";
    b.workload = "n=1048576";
    b.status = sb.status;
    if (sb.status == BenchStatus::Skipped) {
      b.reason = "synthetic: skipped";
    } else {
      b.variants.push_back(syntheticVariant("candidate", VariantRole::Candidate,
                                            sb.medianNs, sb.relativeNoise,
                                            spec.samples, rng));
      if (sb.withReference)
        b.variants.push_back(
            syntheticVariant("reference", VariantRole::Reference,
                             sb.medianNs * sb.referenceScale, sb.relativeNoise,
                             spec.samples, rng));
      if (sb.status == BenchStatus::Incorrect) {
        Correctness &c = b.variants[0].correctness;
        c.status = CorrectnessStatus::Incorrect;
        c.firstMismatches.push_back({"saxpy.y", 7, "1.5", "nan"});
        // Wrong from index 7 on, in the first row of a 64 x 64 grid.
        module::MismatchMap map = module::MismatchMap::create(4096, {64, 64});
        map.add(7, -1);
        for (uint64_t i = 8; i < 64; ++i)
          map.add(i, 0.5);
        c.mismatchMaps.push_back({"saxpy.y", "seed +0", map, ""});
        b.reason = "output saxpy.y differs at index 7";
        b.variants[0].timings.clear();
      } else if (sb.status == BenchStatus::Error) {
        b.reason = "kernel timed out after 15 s (watchdog)";
        b.variants.clear();
      }
    }
    r.benchmarks.push_back(std::move(b));
  }
  computeDerived(r);
  return r;
}

const std::vector<std::string_view> &hostileTextPieces() {
  using namespace std::string_view_literals;
  static const std::vector<std::string_view> pieces = {
      "=",
      "+",
      "-",
      "@",
      "\t",
      "\r",
      "\n",
      "\r\n",
      "|",
      "<",
      ">",
      "&",
      "\"",
      "'",
      "`",
      "*",
      "**",
      "_",
      "[",
      "]",
      "(",
      ")",
      "!",
      "#",
      "## h",
      "~",
      "$",
      "\\",
      "\x1b[31m",
      "\x1b]0;t\x07",
      "\x7f",
      "\xc2\x9b",
      "\xef\xbf\xbe",
      "\xef\xbf\xbf",
      "\xe2\x80\xae",
      "\xe2\x80\xa8",
      "\xed\xa0\x80",
      "\xff",
      "\xc0\xaf",
      "<img src=x onerror=alert(1)>",
      "=HYPERLINK(\"http://x\")",
      "+cmd|'/C calc'!A0",
      "</testcase>",
      "]]>",
      "<!--",
      "&amp;",
      "&#0;",
      "a",
      " ",
      "1",
      "-1.5",
      "\xc3\xa9",
      "\xe6\x97\xa5",
      "\xf0\x9f\x9a\x80",
      "\0"sv};
  return pieces;
}

std::vector<std::string> hostileNameCorpus() {
  std::vector<std::string> corpus;
  for (std::string_view piece : hostileTextPieces())
    corpus.emplace_back(piece);
  for (const char *payload :
       {"<script>console.error('injected script ran')</script>",
        "<img src=x onerror=\"console.error('injected handler ran')\">",
        "\"><svg onload=console.error('injected svg ran')>",
        "javascript:console.error('link')",
        "[x](javascript:alert(1))",
        "=HYPERLINK(\"http://x\",\"y\")",
        "@SUM(1+1)*cmd|'/C calc'!A0",
        "-2+3",
        "\t=1",
        "\r=1",
        "</failure></testcase><testcase name=\"x\">",
        "]]><![CDATA[",
        "a\xef\xbf\xbe"
        "b",
        "\xef\xbf\xbf",
        "\x1b]0;pwned\x07title",
        "\x1b[2J\x1b[H",
        "| a | b |",
        "## heading",
        "\xe2\x80\xae"
        "cod.exe",
        "name with\nnewline"})
    corpus.emplace_back(payload);
  return corpus;
}

} // namespace kb::report
