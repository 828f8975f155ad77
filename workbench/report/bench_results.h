//===- workbench/report/bench_results.h - The bench result model ----------===//
//
// What one `kernel-bench bench` run measured, as a type. `bench` fills a
// BenchReport; every output (bench.json, gbench.json, report.md/.csv/.html,
// junit.xml) and `compare` are rendered from or read into this model, so no
// layer parses another's JSON. bench_json.h is the only code that turns it
// into bench.json and back; docs/bench-json.md documents the fields.
//
// Conventions: times are nanoseconds (double: Vulkan's timestampPeriod is
// fractional); sizes are bytes; an unknown value is an empty std::optional,
// never NaN or a sentinel (bench.json is strict JSON and says "unknown" as
// null).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_BENCH_RESULTS_H_
#define KB_WORKBENCH_REPORT_BENCH_RESULTS_H_

#include "toolchains/kernel_builder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::report {

/// Bumped on any change a reader of the previous version would misread.
/// Readers refuse a newer version (docs/bench-json.md, "Versioning").
inline constexpr int kBenchSchemaVersion = 1;

/// How a sample treats the caches: cold flushes L2 before each sample and
/// times one dispatch; hot times N back-to-back dispatches.
enum class TimingMode { Cold, Hot };

enum class BenchStatus { Ok, Incorrect, Error, Skipped };

enum class VariantRole { Candidate, Reference };

enum class CorrectnessStatus { Correct, Incorrect, NoReference, NotChecked };

/// Why sampling of one timing mode stopped.
enum class StopReason {
  NoiseTarget, // relative noise <= maxNoise after minSamples and minTime
  Plateau,     // noise stopped improving (nvbench's rule)
  Quick,       // --quick limits reached (noise reported, not required)
  Timeout,     // the per-benchmark timeout
  Budget,      // the global time budget
  Interrupted, // Ctrl-C / SIGTERM
  Error,       // the kernel faulted or hung
};

/// Where DeviceInfo::l2Bytes came from (Vulkan has no L2-size query).
/// HostCache: a CPU device (lavapipe), whose "L2" is the host's last-level
/// cache as sysfs reports it.
enum class L2Source { Driver, Table, Default, Flag, HostCache };

struct ToolInfo {
  std::string name = "kernel-bench";
  std::string version;
};

/// The build directory the benchmarks came from.
struct BuildOrigin {
  std::string path;            // as given on the command line
  std::string buildJsonSha256; // sha256 of OUT/build.json at run time
};

/// The flags the run used (after --quick and CPU-device defaults applied).
struct BenchSettings {
  std::vector<TimingMode> modes = {TimingMode::Cold};
  uint32_t minSamples = 10;
  double minTimeSeconds = 0.5;         // time spent sampling, per mode
  double maxNoise = 0.005;             // relative (0.005 = 0.5 %)
  double timeoutSeconds = 15;          // per benchmark
  std::optional<double> budgetSeconds; // global; none when unlimited
  bool quick = false;
  /// Why quick settings apply ("--quick", "CPU device: noise target never
  /// met"); empty when !quick.
  std::string quickReason;
  uint32_t seeds = 3; // correctness seeds
};

struct DeviceInfo {
  std::string driver; // "cuda" | "vulkan"
  std::string name;   // "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string type;   // "discrete-gpu" | "integrated-gpu" | "cpu" | ...
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  std::string uuid; // hex, as the driver reports it
  std::string driverVersion;
  uint64_t memoryBytes = 0;
  uint64_t l2Bytes = 0;
  L2Source l2Source = L2Source::Default;
  /// The copy-bandwidth probe's result (bytes read + written per second,
  /// in GB/s = 1e9 B/s); none when the probe did not run.
  std::optional<double> peakCopyGBps;
};

/// Another process using the GPU while we measured (NVML).
struct GpuProcess {
  uint32_t pid = 0;
  std::string name;
  std::optional<uint64_t> memoryBytes;
};

/// NVML's clocks and throttle reasons read right after timing: the GPU
/// idles before timing, so power and thermal throttling show only here.
struct ClocksAfterTiming {
  std::optional<double> smClockMHz;
  std::optional<double> memoryClockMHz;
  std::optional<uint64_t> throttleReasons; // NVML bitmask
  std::vector<std::string> throttleReasonNames;
};

/// The environment during the run; every field is optional because NVML
/// (CUDA) is optional and Vulkan reports none of it. The clocks and
/// processes are read before timing.
struct Environment {
  std::optional<double> smClockMHz;
  std::optional<double> defaultSmClockMHz;
  std::optional<double> memoryClockMHz;
  std::optional<uint64_t> throttleReasons; // NVML bitmask
  std::vector<std::string> throttleReasonNames;
  /// NVML's compute processes but the benchmark's; in another PID
  /// namespace than the host's (a container), all of them, unnamed, since
  /// NVML's host PIDs cannot be matched against this process.
  std::vector<GpuProcess> otherProcesses;
  std::optional<ClocksAfterTiming> afterTiming; // none without NVML
  std::vector<std::string> warnings;            // shown to the user as-is
};

/// One timed sample.
struct Sample {
  double gpuNs = 0;  // device timestamps around the timed work
  double hostNs = 0; // host wall time around submit + wait
  std::optional<double> smClockMHz;
};

/// Statistics of a sample set (gpuNs). relativeStdev = stdev / mean;
/// quartiles by linear interpolation (numpy's default): the rule of
/// runtime/bench/statistics.h, the only one (summarize() delegates to it).
struct Summary {
  double min = 0, max = 0, mean = 0, median = 0, q1 = 0, q3 = 0;
  double stdev = 0, relativeStdev = 0, iqr = 0;
  uint64_t count = 0;
};

/// Figures derived from a timing's median; each is none when its inputs
/// are unknown.
struct Derived {
  std::optional<double> gbPerSecond;        // bytesMoved / median
  std::optional<double> gflopPerSecond;     // flops / median
  std::optional<double> percentOfPeak;      // gbPerSecond / peakCopyGBps * 100
  std::optional<double> speedupVsReference; // reference median / this median
  /// speedupVsReference > 10: a human should check the kernel is honest.
  bool suspiciousSpeedup = false;
};

/// One timing mode of one variant. Times are for ONE dispatch (a hot
/// sample's time is divided by dispatchesPerSample).
struct Timing {
  TimingMode mode = TimingMode::Cold;
  uint32_t dispatchesPerSample = 1;
  std::vector<Sample> samples; // every accepted sample, in order
  uint64_t discarded = 0;      // e.g. SM clock below 75 % of default
  Summary summary;
  bool noiseTargetMet = false;
  StopReason stopReason = StopReason::NoiseTarget;
  Derived derived;
};

struct Mismatch {
  std::string output; // binding name, e.g. "saxpy.y"
  uint64_t index = 0;
  // Rendered by the checker in the element's type ("nan" and "-inf" are
  // legitimate values here, and bench.json carries no NaN numbers).
  std::string expected;
  std::string actual;
};

struct Correctness {
  CorrectnessStatus status = CorrectnessStatus::NotChecked;
  std::vector<uint64_t> seeds;
  std::vector<Mismatch> firstMismatches;
  std::string note; // e.g. "inputs modified by the kernel"
};

struct Variant {
  std::string name; // "candidate", "reference" or the kernel's name
  VariantRole role = VariantRole::Candidate;
  std::string target; // Target::toString(), e.g. "cuda:sm_90"
  std::string objectSha256;
  std::optional<toolchains::ResourceUsage> resources; // ptxas, when known
  std::optional<double> loadMs; // module load / pipeline creation / JIT
  Correctness correctness;
  std::optional<uint64_t> bytesMoved;
  std::optional<double> flops;
  std::vector<Timing> timings;
};

/// `bench --baseline OTHER_BUILD`: one timing mode of this benchmark's
/// candidate against the same benchmark of another build, both held by one
/// worker and sampled in lockstep (baseline, candidate, baseline, ... on
/// the same device, after the same L2 flush), so drift and clock changes
/// hit both alike. The ratio is the median over the pairs of candidate /
/// baseline GPU time, with its percentile-bootstrap confidence interval
/// (pairs resampled); the verdict follows `compare`'s rule (compare.h).
struct PairedComparison {
  TimingMode mode = TimingMode::Cold;
  std::string baselineBuild; // the other build directory, as given
  uint64_t pairs = 0;
  double ratio = 1, low = 1, high = 1; // candidate / baseline, CI
  double threshold = 0.02;             // δ, relative
  std::string verdict; // "FASTER" | "SLOWER" | "SAME" | "INCONCLUSIVE"
};

struct Benchmark {
  std::string name; // unique in the report; compare pairs by it
  std::string moduleFile;
  std::string executable;
  std::string exportName;
  std::string workload;
  BenchStatus status = BenchStatus::Ok;
  std::string reason; // why not ok
  std::vector<Variant> variants;
  /// With --baseline: the variant named "baseline" holds the other build's
  /// timings, and one entry per timing mode compares them. Empty otherwise.
  std::vector<PairedComparison> paired;
};

/// The whole-program benchmark: the entry function end to end, once with
/// the handwritten kernels substituted and once with generated ones only.
struct ProgramResult {
  std::string module;
  std::string entryFunction;
  BenchStatus status = BenchStatus::Ok;
  std::string reason;
  std::optional<Timing> withSubstitutions;
  std::optional<Timing> generatedOnly;
  std::optional<double> speedup; // generatedOnly median / withSubstitutions
};

/// One benchmark of a sharded run's plan and the shard it was given to.
struct ShardAssignment {
  std::string benchmark; // Benchmark::name, or "program NAME"
  uint32_t shard = 0;
};

/// A sharded run (`bench --shard I/N` or a shard index from the
/// environment): which share of the benchmarks the report holds, and the
/// whole plan, so that `merge` can name the benchmarks of a missing shard.
struct ShardInfo {
  uint32_t index = 0; // 0-based
  uint32_t count = 1;
  std::string source;  // "--shard 0/3", "Kubernetes Indexed Job: ..."
  std::string balance; // "count", or "time in PREV.json"
  std::vector<ShardAssignment> plan; // every shard's benchmarks, run order
};

struct BenchReport {
  ToolInfo tool;
  int schemaVersion = kBenchSchemaVersion;
  std::string createdUtc; // ISO 8601, "2026-12-01T04:05:06Z"
  BuildOrigin build;
  bool interrupted = false;
  BenchSettings settings;
  DeviceInfo device;
  Environment environment;
  std::vector<Benchmark> benchmarks;
  std::optional<ProgramResult> program;
  std::optional<ShardInfo> shard; // none: the run was not sharded
};

// Spellings used in bench.json and by every renderer.
const char *toString(TimingMode mode);
const char *toString(BenchStatus status);
const char *toString(VariantRole role);
const char *toString(CorrectnessStatus status);
const char *toString(StopReason reason);
const char *toString(L2Source source);

/// Statistics of |values| (any order); all zero when empty. The engine's
/// kb::bench::summarize, in the model's type.
Summary summarize(std::vector<double> values);

/// The gpuNs of every sample, in order.
std::vector<double> gpuTimes(const Timing &timing);

/// Recomputes every timing's summary from its samples and its derived
/// figures from the variant's bytes/FLOPs, the device's measured peak and
/// the reference variant's timing of the same mode (the speedup of a
/// reference is none). `bench` calls it once sampling is done.
void computeDerived(BenchReport &report);

/// The ratio above which a speedup over the reference is flagged.
inline constexpr double kSuspiciousSpeedup = 10.0;
/// Above this percent of the measured copy peak, a timing gets the "data
/// stayed in L2, or the byte count is wrong" warning. Not 100: a copy as fast
/// as the peak probe's own measures within noise of it (100.04 % on an
/// H200), which is no sign of either.
inline constexpr double kAbovePeakPercent = 102.0;
inline bool aboveMeasuredPeak(const Derived &d) {
  return d.percentOfPeak && *d.percentOfPeak > kAbovePeakPercent;
}

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_BENCH_RESULTS_H_
