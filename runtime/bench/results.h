//===- runtime/bench/results.h - What a benchmark measured ----------------===//
//
// The one set of result types, from the sampling engine (measure.h) and the
// benchmark protocol (benchmark.h) to every report: the workbench's report
// model (workbench/report/bench_results.h) uses these types as they are, and
// bench.json is their serialization (docs/bench-json.md).
//
// Conventions: times are nanoseconds (double: Vulkan's timestampPeriod is
// fractional); sizes are bytes; an unknown value is an empty std::optional,
// never NaN or a sentinel.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_RESULTS_H_
#define KB_RUNTIME_BENCH_RESULTS_H_

#include "common/resource_usage.h"
#include "runtime/bench/statistics.h"
#include "runtime/hal/counters.h"
#include "runtime/module/mismatch_map.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::bench {

/// How a sample treats the caches: cold flushes L2 before each sample and
/// times one dispatch; hot times N back-to-back dispatches.
enum class TimingMode { Cold, Hot };

/// Why sampling of one timing mode stopped.
enum class StopReason {
  NotStopped,     // still sampling (never in a finished result)
  NoiseTarget,    // relative noise <= maxNoise after minSamples and minTime
  NoisePlateau,   // the noise stopped improving (nvbench's rule)
  NoiseNotFinite, // the noise cannot be computed (a zero mean): a plateau
  MinimumSamples, // noise not required (--quick): minSamples reached
  Timeout,        // the per-benchmark timeout
  Budget,         // the global time budget
  Interrupted,    // Ctrl-C / SIGTERM
  Error,          // the kernel faulted or hung
};

/// Sanitizer: `bench --sanitize` found an error of the kernel's (an access
/// outside a bound buffer, a hazard) while checking it; nothing is timed.
enum class BenchStatus { Ok, Incorrect, Error, Skipped, Sanitizer };

enum class VariantRole { Candidate, Reference };

/// The correctness check's verdict on a candidate.
enum class Verdict { Correct, Incorrect, NoReference, NotChecked };

/// One timed sample, per dispatch (a hot sample is divided by its count).
struct Sample {
  double gpuNs = 0;  // device timestamps around the timed work
  double hostNs = 0; // host wall time around submit + wait
  /// The SM clock while the sample ran (CUDA: stamped by the device).
  std::optional<double> smClockMHz;
};

/// Figures derived from a timing's median; each is none when its inputs
/// are unknown.
struct Derived {
  std::optional<double> gbPerSecond;    // bytesMoved / median
  std::optional<double> gflopPerSecond; // flops / median
  std::optional<double> percentOfPeak;  // gbPerSecond / peakCopyGBps * 100
  /// The roofline at this variant's arithmetic intensity (FLOPs / bytes):
  /// min(peak FLOP/s, intensity x peak bandwidth), both peaks measured;
  /// achieved FLOP/s as a percentage of it, and which ceiling is the lower
  /// there ("memory" left of the ridge point, "compute" right of it). None
  /// without declared FLOPs and bytes and both peaks.
  std::optional<double> percentOfRoofline;
  std::string bound;
  std::optional<double> speedupVsReference; // reference median / this median
  /// speedupVsReference > 10: a human should check the kernel is honest.
  bool suspiciousSpeedup = false;
};

/// One timing mode of one variant. Times are for ONE dispatch.
struct Timing {
  TimingMode mode = TimingMode::Cold;
  uint32_t dispatchesPerSample = 1;
  std::vector<Sample> samples; // every accepted sample, in order
  uint64_t discarded = 0;      // e.g. SM clock below 75 % of default
  Summary summary;             // of the samples' gpuNs
  bool noiseTargetMet = false;
  StopReason stopReason = StopReason::NoiseTarget;
  Derived derived; // filled by the report (it knows bytes, FLOPs, peak)
};

struct Mismatch {
  std::string output; // binding name, e.g. "saxpy.y"
  uint64_t index = 0;
  // Rendered by the checker in the element's type ("nan" and "-inf" are
  // legitimate values here, and bench.json carries no NaN numbers).
  std::string expected;
  std::string actual;
};

/// Where one wrong output is wrong (module/mismatch_map.h), from the first
/// input set it was wrong on.
struct OutputMap {
  std::string output; // binding name, e.g. "matmul.c"
  std::string inputs; // "seed +0", as OutputMismatch::inputs
  module::MismatchMap map;
  std::string note; // why a declared shape went unused
};

struct Correctness {
  Verdict status = Verdict::NotChecked;
  std::vector<uint64_t> seeds;
  std::vector<Mismatch> firstMismatches;
  std::vector<OutputMap> mismatchMaps;
  std::string note; // e.g. "inputs modified by the kernel"
};

struct Variant {
  std::string name; // "candidate", "reference" or the kernel's name
  VariantRole role = VariantRole::Candidate;
  std::string target; // Target::toString(), e.g. "cuda:sm_90"
  std::string objectSha256;
  std::optional<ResourceUsage> resources; // ptxas, when known
  std::optional<double> loadMs; // module load / pipeline creation / JIT
  Correctness correctness;
  std::optional<uint64_t> bytesMoved;
  std::optional<double> flops;
  std::vector<Timing> timings;
  /// `bench --counters`: the hardware counters of one run of the variant's
  /// work (counted_run.h), or why there are none ("skipped: ...",
  /// "failed: ...").
  std::optional<hal::KernelCounters> counters;
  std::string countersNote;
};

// The spellings of bench.json and of every renderer.
const char *toString(TimingMode mode);
const char *toString(StopReason reason);
const char *toString(BenchStatus status);
const char *toString(VariantRole role);
const char *toString(Verdict verdict);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_RESULTS_H_
