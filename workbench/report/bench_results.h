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

#include "runtime/bench/declared.h"
#include "runtime/bench/results.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::report {

/// Bumped on any change a reader of the previous version would misread.
/// Readers refuse a newer version (docs/bench-json.md, "Versioning").
inline constexpr int kBenchSchemaVersion = 1;

// The per-benchmark result types are the runtime's (runtime/bench/results.h):
// the engine that measures and the reports share one set.
using bench::BenchStatus;
using bench::Correctness;
using bench::Derived;
using bench::Mismatch;
using bench::OutputMap;
using bench::Sample;
using bench::StopReason;
using bench::Summary;
using bench::Timing;
using bench::TimingMode;
using bench::Variant;
using bench::VariantRole;
using CorrectnessStatus = bench::Verdict;
using bench::quantileOfSorted;
using bench::summarize;
using bench::toString;

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
  /// `bench --sanitize`: every benchmark checked under the checking layer,
  /// none timed.
  bool sanitize = false;
  /// `bench --profile`: every benchmark's variants run once inside profiler
  /// labels, none timed.
  bool profile = false;
  /// `bench --counters`: every variant's hardware counters read after its
  /// benchmark was timed.
  bool counters = false;
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
  /// The FMA-peak probe's result (f32, two FLOPs per FMA, in GFLOP/s);
  /// none when it did not run.
  std::optional<double> peakFmaGflops;
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

/// What a checking layer reported while `bench --sanitize` checked a
/// benchmark: which variant ran, from which inputs, and the layer's message.
struct SanitizerFinding {
  std::string variant; // "candidate", "reference"
  std::string inputs;  // "seed +0", "zeros", ...
  bool error = false;  // else a warning, which fails nothing
  std::string message;
};

struct Benchmark {
  std::string name; // unique in the report; compare pairs by it
  std::string moduleFile;
  /// The standalone kernel (a kernel.toml with [bench]) whose program holds
  /// the benchmark; empty for the project's program.
  std::string kernel;
  std::string executable;
  std::string exportName;
  std::string workload;
  BenchStatus status = BenchStatus::Ok;
  std::string reason; // why not ok
  std::vector<Variant> variants;
  /// With --baseline: the variant named "baseline" holds the other build's
  /// timings, and one entry per timing mode compares them. Empty otherwise.
  std::vector<PairedComparison> paired;
  /// `bench --sanitize`: the checking layer's findings (errors make the
  /// status Sanitizer). Empty otherwise.
  std::vector<SanitizerFinding> sanitizer;
  /// The point of its kernel's `[bench] sweep` the benchmark measures
  /// (from build.json); empty when the kernel is not swept.
  bench::SweepPoint sweep;
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

// Spellings used in bench.json and by every renderer (the result types'
// are runtime/bench/results.h's).
const char *toString(L2Source source);

/// The gpuNs of every sample, in order.
std::vector<double> gpuTimes(const Timing &timing);

/// |benchmark|'s reference variant (the compiler's kernel or a twin); null
/// when it has none.
const Variant *findReference(const Benchmark &benchmark);

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
/// The fewest samples a timing needs before its spread means anything, and
/// before `compare` gives it a verdict (fewer: INCONCLUSIVE).
inline constexpr uint32_t kMinSamplesForVerdict = 10;
inline bool aboveMeasuredPeak(const Derived &d) {
  return d.percentOfPeak && *d.percentOfPeak > kAbovePeakPercent;
}

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_BENCH_RESULTS_H_
