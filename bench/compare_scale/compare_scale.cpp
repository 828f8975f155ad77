//===- bench/compare_scale/compare_scale.cpp - compare at CI scale --------===//
//
// `kernel-bench compare` on two reports of 10,000 benchmarks x 100 samples
// each (synthetic, written through the bench.json writer), with the fixed
// resample count of the bootstrap. Prints, from one run, the time to read
// both reports (the anchor) against the time of the statistics (pairing,
// bootstrap CIs, verdicts, geomean), their ratio (target <= 0.5) and the
// statistics time per benchmark; then the statistics of 4 benchmarks with
// --large-samples samples per row (default 100,000; target < 1 s).
//
// usage: compare_scale [--benchmarks N] [--samples S] [--resamples R]
//                      [--large-samples L] [--expect-verdicts S,F,SAME,I]
//
// The reports and the bootstrap are seeded, so the verdicts are fixed for
// given sizes: with --expect-verdicts (slower, faster, same, inconclusive)
// the exit status is 1 when they differ (ctest runs a small size so). The
// timings are printed against their targets, not asserted: they depend on
// the machine.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/compare.h"
#include "workbench/report/synthetic_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace kb::report;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "compare_scale: %s\n", what.c_str());
  std::exit(1);
}

/// The ratio statistics / reading must stay under.
constexpr double kTargetRatio = 0.5;
/// Seconds the statistics of the large rows must stay under.
constexpr double kTargetLargeSeconds = 1.0;

BenchReport makeReport(size_t benchmarks, uint32_t samples, uint64_t seed,
                       double scale) {
  SyntheticSpec spec;
  spec.benchmarks = syntheticBenchmarks(benchmarks, 0.02);
  for (size_t i = 0; i < spec.benchmarks.size(); ++i)
    if (i % 10 == 0) // a tenth of them changed: some verdicts not SAME
      spec.benchmarks[i].medianNs *= scale;
  spec.samples = samples;
  spec.seed = seed;
  return makeSyntheticReport(spec);
}

/// Seconds of compare's statistics on 4 benchmarks of |samples| samples per
/// row (in memory: reading is not what this measures).
double largeRowsSeconds(uint32_t samples, const CompareOptions &options) {
  BenchReport base = makeReport(4, samples, 3, 1);
  BenchReport fresh = makeReport(4, samples, 4, 1.1);
  auto start = Clock::now();
  auto comparison = compareReports({base}, fresh, options);
  double seconds = since(start);
  if (!comparison.ok())
    fail(comparison.status().message());
  return seconds;
}

/// "S,F,SAME,I" -> the four counts; false when malformed.
bool parseVerdicts(const char *text, size_t counts[4]) {
  unsigned long long v[4];
  char end;
  if (std::sscanf(text, "%llu,%llu,%llu,%llu%c", &v[0], &v[1], &v[2], &v[3],
                  &end) != 4)
    return false;
  for (int i = 0; i < 4; ++i)
    counts[i] = v[i];
  return true;
}

/// Prints the verdict counts; false when |expected| is given and differs.
bool checkVerdicts(const Comparison &comparison, const size_t *expected) {
  size_t got[4] = {
      comparison.count(Verdict::Slower), comparison.count(Verdict::Faster),
      comparison.count(Verdict::Same), comparison.count(Verdict::Inconclusive)};
  std::printf("  verdicts: %zu slower, %zu faster, %zu same, %zu "
              "inconclusive\n",
              got[0], got[1], got[2], got[3]);
  if (!expected || std::equal(got, got + 4, expected))
    return true;
  std::fprintf(stderr,
               "compare_scale: expected the seeded verdicts %zu slower, %zu "
               "faster, %zu same, %zu inconclusive\n",
               expected[0], expected[1], expected[2], expected[3]);
  return false;
}

} // namespace

int main(int argc, char **argv) {
  size_t benchmarks = 10000;
  uint32_t samples = 100, largeSamples = 100000;
  CompareOptions options; // the CLI's defaults, fixed resample count
  size_t expected[4] = {};
  bool expectVerdicts = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--benchmarks"))
      benchmarks = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--samples"))
      samples = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--resamples"))
      options.resamples = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--large-samples"))
      largeSamples = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--expect-verdicts")) {
      if (!parseVerdicts(argv[i + 1], expected))
        fail("--expect-verdicts wants SLOWER,FASTER,SAME,INCONCLUSIVE counts");
      expectVerdicts = true;
    } else
      fail(std::string("unknown flag ") + argv[i] +
           " (--benchmarks N --samples S --resamples R --large-samples L"
           " --expect-verdicts S,F,SAME,I)");
  }
  if (!benchmarks || !samples || !largeSamples || options.resamples < 100)
    fail("--benchmarks, --samples and --large-samples must be > 0, "
         "--resamples >= 100");

  auto dir = kb::TempDir::create(std::filesystem::temp_directory_path(),
                                 "kb_compare_scale_");
  if (!dir.ok())
    fail(dir.status().message());
  std::filesystem::path basePath = dir->path() / "base.json";
  std::filesystem::path newPath = dir->path() / "new.json";
  auto start = Clock::now();
  kb::Status s =
      writeBenchJson(basePath, makeReport(benchmarks, samples, 1, 1));
  if (s.ok())
    s = writeBenchJson(newPath, makeReport(benchmarks, samples, 2, 1.1));
  if (!s.ok())
    fail(s.message());
  double writeSeconds = since(start);

  start = Clock::now();
  auto base = readBenchJson(basePath);
  auto fresh = readBenchJson(newPath);
  double readSeconds = since(start);
  if (!base.ok() || !fresh.ok())
    fail((base.ok() ? fresh.status() : base.status()).message());

  start = Clock::now();
  auto comparison = compareReports({*base}, *fresh, options);
  double statsSeconds = since(start);
  if (!comparison.ok())
    fail(comparison.status().message());

  uint64_t bytes = std::filesystem::file_size(basePath) +
                   std::filesystem::file_size(newPath);
  std::printf("compare_scale: %zu benchmarks x %u samples per report, "
              "%u bootstrap resamples\n",
              benchmarks, samples, options.resamples);
  std::printf("  writing both reports (setup)  %8.3f s  (%.1f MB)\n",
              writeSeconds, double(bytes) / 1e6);
  std::printf("  reading both reports (anchor) %8.3f s\n", readSeconds);
  std::printf("  statistics (compare)          %8.3f s\n", statsSeconds);
  std::printf("  statistics / reading          %8.2f   (target <= %.2f: %s)\n",
              statsSeconds / readSeconds, kTargetRatio,
              statsSeconds <= kTargetRatio * readSeconds ? "met" : "NOT met");
  std::printf("  statistics per benchmark      %8.1f us\n",
              statsSeconds / double(benchmarks) * 1e6);
  bool verdictsAsExpected =
      checkVerdicts(*comparison, expectVerdicts ? expected : nullptr);
  double large = largeRowsSeconds(largeSamples, options);
  std::printf("  statistics of 4 rows x %u samples %6.3f s (target < %.1f s: "
              "%s)\n",
              largeSamples, large, kTargetLargeSeconds,
              large < kTargetLargeSeconds ? "met" : "NOT met");
  return verdictsAsExpected ? 0 : 1;
}
