//===- workbench/report/bench_json.cpp - bench.json reader and writer -----===//
//
// Each struct's keys are listed once, in its JsonFields table below; the
// writer and the reader both walk that table (workbench/support/
// json_fields.h).
//
//===----------------------------------------------------------------------===//
#include "workbench/report/bench_json.h"

#include "common/file_util.h"
#include "workbench/report/strict_json.h"
#include "workbench/support/json_fields.h"
#include "workbench/support/resource_fields.h"
#include "workbench/support/sweep_fields.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <set>

using json = nlohmann::ordered_json;

namespace kb::report {

namespace {

constexpr std::array<TimingMode, 2> kModes = {TimingMode::Cold,
                                              TimingMode::Hot};
constexpr std::array<BenchStatus, 5> kStatuses = {
    BenchStatus::Ok, BenchStatus::Incorrect, BenchStatus::Error,
    BenchStatus::Skipped, BenchStatus::Sanitizer};
constexpr std::array<VariantRole, 2> kRoles = {VariantRole::Candidate,
                                               VariantRole::Reference};
constexpr std::array<CorrectnessStatus, 4> kCorrectness = {
    CorrectnessStatus::Correct, CorrectnessStatus::Incorrect,
    CorrectnessStatus::NoReference, CorrectnessStatus::NotChecked};
constexpr std::array<StopReason, 7> kStopReasons = {
    StopReason::NoiseTarget,    StopReason::NoisePlateau,
    StopReason::MinimumSamples, StopReason::Timeout,
    StopReason::Budget,         StopReason::Interrupted,
    StopReason::Error};
constexpr std::array<L2Source, 5> kL2Sources = {
    L2Source::Driver, L2Source::Table, L2Source::Default, L2Source::Flag,
    L2Source::HostCache};
constexpr std::array<const char *, 4> kVerdicts = {"FASTER", "SLOWER", "SAME",
                                                   "INCONCLUSIVE"};

/// Samples as parallel arrays: a third of the size of an array of objects,
/// which matters for reports with 10^4 benchmarks x 10^2 samples.
struct SampleColumns {
  std::vector<double> gpuNs;
  std::vector<double> hostNs;
  /// None when no sample has a clock.
  std::optional<std::vector<std::optional<double>>> smClockMHz;
};

/// The codec between a timing's samples and their columns.
struct SamplesAsColumns {
  using Stored = SampleColumns;
  SampleColumns store(const std::vector<Sample> &samples) const;
  std::string load(const SampleColumns &columns,
                   std::vector<Sample> &samples) const;
};

SampleColumns
SamplesAsColumns::store(const std::vector<Sample> &samples) const {
  SampleColumns columns;
  std::vector<std::optional<double>> clock;
  bool anyClock = false;
  for (const Sample &s : samples) {
    columns.gpuNs.push_back(s.gpuNs);
    columns.hostNs.push_back(s.hostNs);
    clock.push_back(s.smClockMHz);
    anyClock |= s.smClockMHz.has_value();
  }
  if (anyClock)
    columns.smClockMHz = std::move(clock);
  return columns;
}

/// Why |time| (column |name|, sample |i|) is no time a clock measures; ""
/// when it is one.
std::string badTime(const char *name, size_t i, double time) {
  // A corrupt or forged report, whose rows would otherwise get confident
  // verdicts (a negative time is "faster") or overflow compare's ratios (a
  // denormal time). No clock measures below a picosecond, and no sample
  // lasts a week: the bench worker's watchdog ends it long before.
  constexpr double kShortestNs = 1e-3, kLongestNs = 6.048e14;
  if (std::isfinite(time) && time >= kShortestNs && time <= kLongestNs)
    return "";
  return "." + std::string(name) + "[" + std::to_string(i) +
         "]: expected a time in ns from 0.001 (a picosecond) to 6.048e14 (a "
         "week), found " +
         json(time).dump() +
         "; the report is corrupt (samples are never zero, negative, or "
         "beyond what a clock measures)";
}

std::string SamplesAsColumns::load(const SampleColumns &columns,
                                   std::vector<Sample> &samples) const {
  size_t n = columns.gpuNs.size();
  size_t clocks = columns.smClockMHz ? columns.smClockMHz->size() : n;
  if (columns.hostNs.size() != n || clocks != n)
    return ".gpu_ns: " + std::to_string(n) + " samples, but host_ns has " +
           std::to_string(columns.hostNs.size()) +
           (columns.smClockMHz
                ? " and sm_clock_mhz has " + std::to_string(clocks)
                : std::string()) +
           "; the arrays must have one entry per sample";
  samples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (std::string why : {badTime("gpu_ns", i, columns.gpuNs[i]),
                            badTime("host_ns", i, columns.hostNs[i])})
      if (!why.empty())
        return why;
    samples[i].gpuNs = columns.gpuNs[i];
    samples[i].hostNs = columns.hostNs[i];
    if (columns.smClockMHz)
      samples[i].smClockMHz = (*columns.smClockMHz)[i];
  }
  return "";
}

/// "benchmarks[i].name: ..." for the first name that appears twice.
std::string repeatedName(const std::vector<Benchmark> &benchmarks) {
  std::set<std::string> names;
  for (size_t i = 0; i < benchmarks.size(); ++i)
    if (!names.insert(benchmarks[i].name).second)
      return "benchmarks[" + std::to_string(i) + "].name: \"" +
             benchmarks[i].name +
             "\" appears twice; benchmark names are unique in a report";
  return "";
}

/// A shard's own index, then each plan entry's, against the shard count.
std::string shardOutOfRange(const ShardInfo &s, bool plan) {
  if (!plan && (s.count == 0 || s.index >= s.count))
    return "index: shard " + std::to_string(s.index) + " of " +
           std::to_string(s.count) + " is out of range";
  for (size_t i = 0; plan && i < s.plan.size(); ++i)
    if (s.plan[i].shard >= s.count)
      return "plan[" + std::to_string(i) +
             "].shard: " + std::to_string(s.plan[i].shard) +
             " is out of range for " + std::to_string(s.count) + " shards";
  return "";
}

/// Why a mismatch map read back cannot be drawn; "" when it can. The
/// renderers index its cells by its sizes, so they must agree.
std::string badMismatchMap(const module::MismatchMap &m) {
  // The geometry is what MismatchMap::create makes of the element count and
  // the shape: the renderers index the cells by it.
  uint64_t elements = 0;
  if (m.shape.size() > 4 || __builtin_mul_overflow(m.rows, m.cols, &elements))
    return "shape/rows/cols: not the grid of an output";
  module::MismatchMap expected = module::MismatchMap::create(elements, m.shape);
  if (expected.shape != m.shape || expected.rows != m.rows ||
      expected.cols != m.cols || expected.rowsPerCell != m.rowsPerCell ||
      expected.colsPerCell != m.colsPerCell ||
      expected.cellRows != m.cellRows || expected.cellCols != m.cellCols)
    return "cell_rows/cell_cols: " + std::to_string(m.cellRows) + " x " +
           std::to_string(m.cellCols) + " cells of " +
           std::to_string(m.rowsPerCell) + " x " +
           std::to_string(m.colsPerCell) + " are not the map of " +
           std::to_string(m.rows) + " x " + std::to_string(m.cols) +
           " elements";
  size_t cells = expected.wrong.size();
  if (m.wrong.size() != cells || m.maxError.size() != cells)
    return "wrong/max_error: expected " + std::to_string(cells) +
           " cells each, found " + std::to_string(m.wrong.size()) + " and " +
           std::to_string(m.maxError.size());
  uint64_t total = 0;
  for (uint64_t w : m.wrong)
    if (__builtin_add_overflow(total, w, &total))
      break;
  if (total != m.wrongCount)
    return "wrong_count: " + std::to_string(m.wrongCount) +
           " is not the sum of the cells' " + std::to_string(total);
  if (m.wrongCount && (m.top > m.bottom || m.left > m.right ||
                       m.bottom >= m.rows || m.right >= m.cols))
    return "box: outside the " + std::to_string(m.rows) + " x " +
           std::to_string(m.cols) + " elements";
  return "";
}

} // namespace

} // namespace kb::report

//===----------------------------------------------------------------------===//
// The field tables: every key of bench.json, in file order
//===----------------------------------------------------------------------===//

namespace kb::workbench {

using namespace kb::report;

template <> struct JsonFields<Summary> {
  template <typename IO, typename S> static Status map(IO &io, S &s) {
    KB_RETURN_IF_ERROR(io.field("min", s.min));
    KB_RETURN_IF_ERROR(io.field("max", s.max));
    KB_RETURN_IF_ERROR(io.field("mean", s.mean));
    KB_RETURN_IF_ERROR(io.field("median", s.median));
    KB_RETURN_IF_ERROR(io.field("q1", s.q1));
    KB_RETURN_IF_ERROR(io.field("q3", s.q3));
    KB_RETURN_IF_ERROR(io.field("stdev", s.stdev));
    KB_RETURN_IF_ERROR(io.field("relative_stdev", s.relativeStdev));
    KB_RETURN_IF_ERROR(io.field("iqr", s.iqr));
    return io.field("count", s.count);
  }
};

template <> struct JsonFields<Derived> {
  template <typename IO, typename S> static Status map(IO &io, S &d) {
    KB_RETURN_IF_ERROR(io.field("gb_per_s", d.gbPerSecond));
    KB_RETURN_IF_ERROR(io.field("gflop_per_s", d.gflopPerSecond));
    KB_RETURN_IF_ERROR(io.field("percent_of_peak", d.percentOfPeak));
    KB_RETURN_IF_ERROR(io.field("speedup_vs_reference", d.speedupVsReference));
    KB_RETURN_IF_ERROR(io.field("suspicious_speedup", d.suspiciousSpeedup));
    // Added within schema 1: absent from reports written before it.
    KB_RETURN_IF_ERROR(io.field("percent_of_roofline", d.percentOfRoofline,
                                Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(io.field("bound", d.bound, Presence::OmitWhenEmpty));
    return io.check([&] {
      return d.bound.empty() || d.bound == "memory" || d.bound == "compute"
                 ? std::string()
                 : "bound: expected \"memory\" or \"compute\", found \"" +
                       d.bound + "\"";
    });
  }
};

template <> struct JsonFields<SampleColumns> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("gpu_ns", c.gpuNs));
    KB_RETURN_IF_ERROR(io.field("host_ns", c.hostNs));
    return io.field("sm_clock_mhz", c.smClockMHz);
  }
};

template <> struct JsonFields<Timing> {
  template <typename IO, typename S> static Status map(IO &io, S &t) {
    KB_RETURN_IF_ERROR(io.field("mode", t.mode, oneOf(kModes)));
    KB_RETURN_IF_ERROR(
        io.field("dispatches_per_sample", t.dispatchesPerSample));
    KB_RETURN_IF_ERROR(io.field("samples", t.samples, SamplesAsColumns()));
    KB_RETURN_IF_ERROR(io.field("discarded", t.discarded));
    KB_RETURN_IF_ERROR(io.field("summary", t.summary));
    KB_RETURN_IF_ERROR(io.field("noise_target_met", t.noiseTargetMet));
    KB_RETURN_IF_ERROR(
        io.field("stop_reason", t.stopReason, oneOf(kStopReasons)));
    return io.field("derived", t.derived);
  }
};

template <> struct JsonFields<Mismatch> {
  template <typename IO, typename S> static Status map(IO &io, S &m) {
    KB_RETURN_IF_ERROR(io.field("output", m.output));
    KB_RETURN_IF_ERROR(io.field("index", m.index));
    KB_RETURN_IF_ERROR(io.field("expected", m.expected));
    return io.field("actual", m.actual);
  }
};

/// The cells of a mismatch map (module/mismatch_map.h), row-major; the
/// element box as [top, bottom, left, right], inclusive.
template <> struct JsonFields<module::MismatchMap> {
  template <typename IO, typename S> static Status map(IO &io, S &m) {
    KB_RETURN_IF_ERROR(io.field("shape", m.shape));
    KB_RETURN_IF_ERROR(io.field("rows", m.rows));
    KB_RETURN_IF_ERROR(io.field("cols", m.cols));
    KB_RETURN_IF_ERROR(io.field("rows_per_cell", m.rowsPerCell));
    KB_RETURN_IF_ERROR(io.field("cols_per_cell", m.colsPerCell));
    KB_RETURN_IF_ERROR(io.field("cell_rows", m.cellRows));
    KB_RETURN_IF_ERROR(io.field("cell_cols", m.cellCols));
    KB_RETURN_IF_ERROR(io.field("wrong_count", m.wrongCount));
    KB_RETURN_IF_ERROR(io.field("top", m.top));
    KB_RETURN_IF_ERROR(io.field("bottom", m.bottom));
    KB_RETURN_IF_ERROR(io.field("left", m.left));
    KB_RETURN_IF_ERROR(io.field("right", m.right));
    KB_RETURN_IF_ERROR(io.field("wrong", m.wrong));
    KB_RETURN_IF_ERROR(io.field("max_error", m.maxError));
    return io.check([&] { return badMismatchMap(m); });
  }
};

template <> struct JsonFields<OutputMap> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("output", o.output));
    KB_RETURN_IF_ERROR(io.field("inputs", o.inputs));
    KB_RETURN_IF_ERROR(io.field("note", o.note));
    return io.field("map", o.map);
  }
};

template <> struct JsonFields<Correctness> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("status", c.status, oneOf(kCorrectness)));
    KB_RETURN_IF_ERROR(io.field("seeds", c.seeds));
    KB_RETURN_IF_ERROR(io.field("first_mismatches", c.firstMismatches));
    // Only where an output was wrong.
    KB_RETURN_IF_ERROR(
        io.field("mismatch_maps", c.mismatchMaps, Presence::OmitWhenEmpty));
    return io.field("note", c.note);
  }
};

template <> struct JsonFields<hal::KernelCounters> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("dram_bytes_read", c.dramBytesRead));
    KB_RETURN_IF_ERROR(io.field("dram_bytes_written", c.dramBytesWritten));
    KB_RETURN_IF_ERROR(
        io.field("achieved_occupancy_pct", c.achievedOccupancyPct));
    KB_RETURN_IF_ERROR(io.field("sm_throughput_pct", c.smThroughputPct));
    KB_RETURN_IF_ERROR(io.field("gpu_time_ns", c.gpuTimeNs));
    KB_RETURN_IF_ERROR(io.field("kernels", c.kernels));
    return io.field("passes", c.passes);
  }
};

template <> struct JsonFields<Variant> {
  template <typename IO, typename S> static Status map(IO &io, S &v) {
    KB_RETURN_IF_ERROR(io.field("name", v.name));
    KB_RETURN_IF_ERROR(io.field("role", v.role, oneOf(kRoles)));
    KB_RETURN_IF_ERROR(io.field("target", v.target));
    KB_RETURN_IF_ERROR(io.field("object_sha256", v.objectSha256));
    KB_RETURN_IF_ERROR(io.field("resources", v.resources));
    KB_RETURN_IF_ERROR(io.field("load_ms", v.loadMs));
    KB_RETURN_IF_ERROR(io.field("correctness", v.correctness));
    KB_RETURN_IF_ERROR(io.field("bytes_moved", v.bytesMoved));
    KB_RETURN_IF_ERROR(io.field("flops", v.flops));
    KB_RETURN_IF_ERROR(io.field("timings", v.timings));
    // Added within schema 1: written only under --counters.
    KB_RETURN_IF_ERROR(
        io.field("counters", v.counters, Presence::OmitWhenEmpty));
    return io.field("counters_note", v.countersNote, Presence::OmitWhenEmpty);
  }
};

template <> struct JsonFields<PairedComparison> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("mode", p.mode, oneOf(kModes)));
    KB_RETURN_IF_ERROR(io.field("baseline_build", p.baselineBuild));
    KB_RETURN_IF_ERROR(io.field("pairs", p.pairs));
    KB_RETURN_IF_ERROR(io.field("ratio", p.ratio));
    KB_RETURN_IF_ERROR(io.field("low", p.low));
    KB_RETURN_IF_ERROR(io.field("high", p.high));
    KB_RETURN_IF_ERROR(io.field("threshold", p.threshold));
    return io.field("verdict", p.verdict, oneOf(kVerdicts));
  }
};

template <> struct JsonFields<SanitizerFinding> {
  template <typename IO, typename S> static Status map(IO &io, S &f) {
    KB_RETURN_IF_ERROR(io.field("variant", f.variant));
    KB_RETURN_IF_ERROR(io.field("inputs", f.inputs));
    KB_RETURN_IF_ERROR(io.field("error", f.error));
    return io.field("message", f.message);
  }
};

template <> struct JsonFields<Benchmark> {
  template <typename IO, typename S> static Status map(IO &io, S &b) {
    KB_RETURN_IF_ERROR(io.field("name", b.name));
    KB_RETURN_IF_ERROR(io.field("module", b.moduleFile));
    // Added within schema 1: absent = the project's program.
    KB_RETURN_IF_ERROR(io.field("kernel", b.kernel, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(io.field("executable", b.executable));
    KB_RETURN_IF_ERROR(io.field("export", b.exportName));
    KB_RETURN_IF_ERROR(io.field("workload", b.workload));
    KB_RETURN_IF_ERROR(io.field("status", b.status, oneOf(kStatuses)));
    KB_RETURN_IF_ERROR(io.field("reason", b.reason));
    KB_RETURN_IF_ERROR(io.field("variants", b.variants));
    // Added within schema 1: absent = no paired comparison.
    KB_RETURN_IF_ERROR(io.field("paired", b.paired, Presence::MayBeAbsent));
    // Added within schema 1: written only under --sanitize.
    KB_RETURN_IF_ERROR(
        io.field("sanitizer", b.sanitizer, Presence::OmitWhenEmpty));
    // Added within schema 1: written only for a point of a `[bench] sweep`.
    return io.field("sweep", b.sweep, Presence::OmitWhenEmpty);
  }
};

template <> struct JsonFields<ProgramResult> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("module", p.module));
    KB_RETURN_IF_ERROR(io.field("entry_function", p.entryFunction));
    KB_RETURN_IF_ERROR(io.field("status", p.status, oneOf(kStatuses)));
    KB_RETURN_IF_ERROR(io.field("reason", p.reason));
    KB_RETURN_IF_ERROR(io.field("with_substitutions", p.withSubstitutions));
    KB_RETURN_IF_ERROR(io.field("generated_only", p.generatedOnly));
    return io.field("speedup", p.speedup);
  }
};

template <> struct JsonFields<BenchSettings> {
  template <typename IO, typename S> static Status map(IO &io, S &s) {
    KB_RETURN_IF_ERROR(io.field("modes", s.modes, listOf(oneOf(kModes))));
    KB_RETURN_IF_ERROR(io.field("min_samples", s.minSamples));
    KB_RETURN_IF_ERROR(io.field("min_time_s", s.minTimeSeconds));
    KB_RETURN_IF_ERROR(io.field("max_noise", s.maxNoise));
    KB_RETURN_IF_ERROR(io.field("timeout_s", s.timeoutSeconds));
    KB_RETURN_IF_ERROR(io.field("budget_s", s.budgetSeconds));
    KB_RETURN_IF_ERROR(io.field("quick", s.quick));
    KB_RETURN_IF_ERROR(io.field("quick_reason", s.quickReason));
    KB_RETURN_IF_ERROR(io.field("seeds", s.seeds));
    // Added within schema 1: written only under --sanitize, --profile.
    KB_RETURN_IF_ERROR(
        io.field("sanitize", s.sanitize, Presence::OmitWhenEmpty));
    KB_RETURN_IF_ERROR(io.field("profile", s.profile, Presence::OmitWhenEmpty));
    return io.field("counters", s.counters, Presence::OmitWhenEmpty);
  }
};

template <> struct JsonFields<DeviceInfo> {
  template <typename IO, typename S> static Status map(IO &io, S &d) {
    KB_RETURN_IF_ERROR(io.field("driver", d.driver));
    KB_RETURN_IF_ERROR(io.field("name", d.name));
    KB_RETURN_IF_ERROR(io.field("type", d.type));
    KB_RETURN_IF_ERROR(io.field("vendor_id", d.vendorId));
    KB_RETURN_IF_ERROR(io.field("device_id", d.deviceId));
    KB_RETURN_IF_ERROR(io.field("uuid", d.uuid));
    KB_RETURN_IF_ERROR(io.field("driver_version", d.driverVersion));
    KB_RETURN_IF_ERROR(io.field("memory_bytes", d.memoryBytes));
    KB_RETURN_IF_ERROR(io.field("l2_bytes", d.l2Bytes));
    KB_RETURN_IF_ERROR(io.field("l2_source", d.l2Source, oneOf(kL2Sources)));
    KB_RETURN_IF_ERROR(io.field("peak_copy_gbps", d.peakCopyGBps));
    // Added within schema 1: reports written before it have none.
    return io.field("peak_fma_gflops", d.peakFmaGflops, Presence::MayBeAbsent);
  }
};

template <> struct JsonFields<ClocksAfterTiming> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("sm_clock_mhz", c.smClockMHz));
    KB_RETURN_IF_ERROR(io.field("memory_clock_mhz", c.memoryClockMHz));
    KB_RETURN_IF_ERROR(io.field("throttle_reasons", c.throttleReasons));
    return io.field("throttle_reason_names", c.throttleReasonNames);
  }
};

template <> struct JsonFields<GpuProcess> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("pid", p.pid));
    KB_RETURN_IF_ERROR(io.field("name", p.name));
    return io.field("memory_bytes", p.memoryBytes);
  }
};

template <> struct JsonFields<Environment> {
  template <typename IO, typename S> static Status map(IO &io, S &e) {
    KB_RETURN_IF_ERROR(io.field("sm_clock_mhz", e.smClockMHz));
    KB_RETURN_IF_ERROR(io.field("default_sm_clock_mhz", e.defaultSmClockMHz));
    KB_RETURN_IF_ERROR(io.field("memory_clock_mhz", e.memoryClockMHz));
    KB_RETURN_IF_ERROR(io.field("throttle_reasons", e.throttleReasons));
    KB_RETURN_IF_ERROR(
        io.field("throttle_reason_names", e.throttleReasonNames));
    KB_RETURN_IF_ERROR(io.field("other_processes", e.otherProcesses));
    // Added within schema 1: reports written before it have none.
    KB_RETURN_IF_ERROR(
        io.field("after_timing", e.afterTiming, Presence::MayBeAbsent));
    return io.field("warnings", e.warnings);
  }
};

template <> struct JsonFields<ShardAssignment> {
  template <typename IO, typename S> static Status map(IO &io, S &a) {
    KB_RETURN_IF_ERROR(io.field("benchmark", a.benchmark));
    return io.field("shard", a.shard);
  }
};

template <> struct JsonFields<ShardInfo> {
  template <typename IO, typename S> static Status map(IO &io, S &s) {
    KB_RETURN_IF_ERROR(io.field("index", s.index));
    KB_RETURN_IF_ERROR(io.field("count", s.count));
    KB_RETURN_IF_ERROR(io.field("source", s.source));
    KB_RETURN_IF_ERROR(io.field("balance", s.balance));
    KB_RETURN_IF_ERROR(io.check([&] { return shardOutOfRange(s, false); }));
    KB_RETURN_IF_ERROR(io.field("plan", s.plan));
    return io.check([&] { return shardOutOfRange(s, true); });
  }
};

template <> struct JsonFields<ToolInfo> {
  template <typename IO, typename S> static Status map(IO &io, S &t) {
    KB_RETURN_IF_ERROR(io.field("name", t.name));
    return io.field("version", t.version);
  }
};

template <> struct JsonFields<BuildOrigin> {
  template <typename IO, typename S> static Status map(IO &io, S &b) {
    KB_RETURN_IF_ERROR(io.field("path", b.path));
    return io.field("build_json_sha256", b.buildJsonSha256);
  }
};

template <> struct JsonFields<BenchReport> {
  template <typename IO, typename S> static Status map(IO &io, S &r) {
    // checkIdentity reads "format" and "schema_version" first.
    KB_RETURN_IF_ERROR(io.derived("format", [] { return kBenchFormatName; }));
    KB_RETURN_IF_ERROR(io.field("schema_version", r.schemaVersion));
    KB_RETURN_IF_ERROR(io.field("tool", r.tool));
    KB_RETURN_IF_ERROR(io.field("created_utc", r.createdUtc));
    KB_RETURN_IF_ERROR(io.field("build", r.build));
    KB_RETURN_IF_ERROR(io.field("interrupted", r.interrupted));
    KB_RETURN_IF_ERROR(io.field("settings", r.settings));
    KB_RETURN_IF_ERROR(io.field("device", r.device));
    KB_RETURN_IF_ERROR(io.field("environment", r.environment));
    KB_RETURN_IF_ERROR(io.field("benchmarks", r.benchmarks));
    KB_RETURN_IF_ERROR(io.check([&] { return repeatedName(r.benchmarks); }));
    KB_RETURN_IF_ERROR(io.field("program", r.program));
    // Added within schema 1: reports written before it have no "shard".
    return io.field("shard", r.shard, Presence::MayBeAbsent);
  }
};

} // namespace kb::workbench

namespace kb::report {

StatusOr<std::string> renderBenchJson(const BenchReport &report) {
  return dumpStrictJson(workbench::toJsonObject(report), 1, "bench report");
}

Status writeBenchJson(const std::filesystem::path &path,
                      const BenchReport &report) {
  KB_ASSIGN_OR_RETURN(std::string text, renderBenchJson(report));
  return kb::writeFileAtomic(path, text)
      .withContext("cannot write " + path.string());
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

const char *typeName(const json &j) {
  if (j.is_number())
    return "a number";
  return j.type_name(); // "string", "object", "array", "null", "boolean"
}

/// The first byte that is not part of well-formed UTF-8 (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF); npos when none.
size_t firstInvalidUtf8(std::string_view text) {
  const auto *s = reinterpret_cast<const unsigned char *>(text.data());
  size_t n = text.size(), i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
      len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
      len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
      len = 4, cp = c & 0x07;
    else
      return i;
    if (i + len > n)
      return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80)
        return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string lineColumn(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

/// Parses |text| as strict JSON (nlohmann rejects NaN/Infinity tokens,
/// comments and trailing commas), with the error located by line:column.
StatusOr<json> parseStrictJson(std::string_view text, std::string_view source) {
  std::string src(source);
  size_t bad = firstInvalidUtf8(text);
  if (bad != std::string_view::npos)
    return invalidArgument(
        src + ":" + lineColumn(text, bad) + ": not UTF-8 text (byte " +
        std::to_string(bad) +
        "); a bench.json is UTF-8 JSON written by kernel-bench bench; "
        "the file is damaged or is not a report");
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error &e) {
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    if (at >= text.size() ||
        text.find_first_not_of(" \t\r\n", at) == std::string_view::npos)
      return invalidArgument(
          src + ":" + lineColumn(text, text.size()) +
          ": truncated: the JSON ends before the document is complete (" +
          std::to_string(text.size()) +
          " bytes); the run that wrote it was probably killed — rerun "
          "kernel-bench bench");
    std::string near(text.substr(at, 12));
    if (near.rfind("NaN", 0) == 0 || near.rfind("Infinity", 0) == 0 ||
        near.rfind("-Infinity", 0) == 0 || near.rfind("nan", 0) == 0 ||
        near.rfind("inf", 0) == 0)
      return invalidArgument(src + ":" + lineColumn(text, at) + ": found '" +
                             near.substr(0, near.find_first_of(",]} \n")) +
                             "': NaN and Infinity are not JSON and never "
                             "appear in a bench.json kernel-bench wrote; "
                             "the file was produced or edited by another "
                             "tool");
    return invalidArgument(src + ":" + lineColumn(text, at) +
                           ": not valid JSON: " + e.what());
  }
  return j;
}

/// Checks "format" and "schema_version" before anything else, so that a
/// foreign or newer file gets the message that explains it.
Status checkIdentity(const json &j, const std::string &src) {
  if (!j.is_object())
    return invalidArgument(src +
                           ": not a kernel-bench bench report: "
                           "expected a JSON object, found " +
                           std::string(typeName(j)));
  auto format = j.find("format");
  if (format == j.end() || !format->is_string() ||
      *format != kBenchFormatName) {
    std::string hint;
    if (j.contains("context") && j.contains("benchmarks"))
      hint = " (it looks like Google Benchmark JSON, e.g. a gbench.json; "
             "pass the bench.json next to it)";
    else if (j.contains("jobs") || j.contains("totals"))
      hint = " (it looks like a build.json; pass BUILD/results/bench.json)";
    return invalidArgument(
        src +
        ": not a kernel-bench bench report: "
        "expected \"format\": \"" +
        std::string(kBenchFormatName) + "\", found " +
        (format == j.end() ? std::string("no \"format\"") : format->dump()) +
        hint);
  }
  auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer())
    return invalidArgument(src + ": schema_version: expected an integer");
  int v = version->get<int>();
  if (v > kBenchSchemaVersion)
    return failedPrecondition(
        src + ": schema_version " + std::to_string(v) +
        " is newer than this kernel-bench reads (" +
        std::to_string(kBenchSchemaVersion) +
        "); use the kernel-bench that wrote it, or a newer one");
  if (v < 1)
    return invalidArgument(src + ": schema_version " + std::to_string(v) +
                           " is not a valid version (expected 1.." +
                           std::to_string(kBenchSchemaVersion) + ")");
  return okStatus();
}

} // namespace

StatusOr<BenchReport> parseBenchJson(std::string_view text,
                                     std::string_view source) {
  std::string src(source);
  KB_ASSIGN_OR_RETURN(json j, parseStrictJson(text, source));
  KB_RETURN_IF_ERROR(checkIdentity(j, src));
  workbench::JsonOrigin origin{src, "the file is not a complete bench.json; "
                                    "regenerate it with kernel-bench bench"};
  BenchReport report;
  KB_RETURN_IF_ERROR(workbench::fromJsonObject(j, origin, report));
  return report;
}

StatusOr<BenchReport> readBenchJson(const std::filesystem::path &path) {
  KB_ASSIGN_OR_RETURN(std::string text, kb::readFile(path, kBenchReportInput));
  return parseBenchJson(text, path.string());
}

} // namespace kb::report
