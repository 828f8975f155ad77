//===- workbench/report/bench_json.cpp - bench.json reader and writer -----===//
#include "workbench/report/bench_json.h"

#include "common/file_util.h"
#include "workbench/report/strict_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <functional>
#include <set>

using json = nlohmann::ordered_json;

namespace kb::report {

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

template <typename T> json optional(const std::optional<T> &value) {
  return value ? json(*value) : json(nullptr);
}

json stringsJson(const std::vector<std::string> &values) {
  return json(values);
}

json resourcesJson(const ResourceUsage &r) {
  return {{"registers", r.registers},
          {"stack_frame_bytes", r.stackFrameBytes},
          {"spill_store_bytes", r.spillStoreBytes},
          {"spill_load_bytes", r.spillLoadBytes},
          {"shared_memory_bytes", r.sharedMemoryBytes},
          {"barriers", r.barriers},
          {"constant_memory_bytes", r.constantMemoryBytes}};
}

json summaryJson(const Summary &s) {
  return {{"min", s.min},     {"max", s.max},
          {"mean", s.mean},   {"median", s.median},
          {"q1", s.q1},       {"q3", s.q3},
          {"stdev", s.stdev}, {"relative_stdev", s.relativeStdev},
          {"iqr", s.iqr},     {"count", s.count}};
}

json derivedJson(const Derived &d) {
  return {{"gb_per_s", optional(d.gbPerSecond)},
          {"gflop_per_s", optional(d.gflopPerSecond)},
          {"percent_of_peak", optional(d.percentOfPeak)},
          {"speedup_vs_reference", optional(d.speedupVsReference)},
          {"suspicious_speedup", d.suspiciousSpeedup}};
}

/// Samples as parallel arrays: a third of the size of an array of objects,
/// which matters for reports with 10^4 benchmarks x 10^2 samples.
json samplesJson(const std::vector<Sample> &samples) {
  json gpu = json::array(), host = json::array(), clock = json::array();
  bool anyClock = false;
  for (const Sample &s : samples) {
    gpu.push_back(s.gpuNs);
    host.push_back(s.hostNs);
    clock.push_back(optional(s.smClockMHz));
    anyClock |= s.smClockMHz.has_value();
  }
  return {{"gpu_ns", std::move(gpu)},
          {"host_ns", std::move(host)},
          {"sm_clock_mhz", anyClock ? std::move(clock) : json(nullptr)}};
}

json timingJson(const Timing &t) {
  return {{"mode", toString(t.mode)},
          {"dispatches_per_sample", t.dispatchesPerSample},
          {"samples", samplesJson(t.samples)},
          {"discarded", t.discarded},
          {"summary", summaryJson(t.summary)},
          {"noise_target_met", t.noiseTargetMet},
          {"stop_reason", toString(t.stopReason)},
          {"derived", derivedJson(t.derived)}};
}

json correctnessJson(const Correctness &c) {
  json mismatches = json::array();
  for (const Mismatch &m : c.firstMismatches)
    mismatches.push_back({{"output", m.output},
                          {"index", m.index},
                          {"expected", m.expected},
                          {"actual", m.actual}});
  return {{"status", toString(c.status)},
          {"seeds", c.seeds},
          {"first_mismatches", std::move(mismatches)},
          {"note", c.note}};
}

json variantJson(const Variant &v) {
  json timings = json::array();
  for (const Timing &t : v.timings)
    timings.push_back(timingJson(t));
  return {{"name", v.name},
          {"role", toString(v.role)},
          {"target", v.target},
          {"object_sha256", v.objectSha256},
          {"resources", v.resources ? resourcesJson(*v.resources) : json()},
          {"load_ms", optional(v.loadMs)},
          {"correctness", correctnessJson(v.correctness)},
          {"bytes_moved", optional(v.bytesMoved)},
          {"flops", optional(v.flops)},
          {"timings", std::move(timings)}};
}

json pairedJson(const PairedComparison &p) {
  return {{"mode", toString(p.mode)},
          {"baseline_build", p.baselineBuild},
          {"pairs", p.pairs},
          {"ratio", p.ratio},
          {"low", p.low},
          {"high", p.high},
          {"threshold", p.threshold},
          {"verdict", p.verdict}};
}

json benchmarkJson(const Benchmark &b) {
  json variants = json::array();
  for (const Variant &v : b.variants)
    variants.push_back(variantJson(v));
  json paired = json::array();
  for (const PairedComparison &p : b.paired)
    paired.push_back(pairedJson(p));
  return {{"name", b.name},
          {"module", b.moduleFile},
          {"kernel", b.kernel},
          {"executable", b.executable},
          {"export", b.exportName},
          {"workload", b.workload},
          {"status", toString(b.status)},
          {"reason", b.reason},
          {"variants", std::move(variants)},
          {"paired", std::move(paired)}};
}

json optionalTiming(const std::optional<Timing> &t) {
  return t ? timingJson(*t) : json(nullptr);
}

json programJson(const ProgramResult &p) {
  return {{"module", p.module},
          {"entry_function", p.entryFunction},
          {"status", toString(p.status)},
          {"reason", p.reason},
          {"with_substitutions", optionalTiming(p.withSubstitutions)},
          {"generated_only", optionalTiming(p.generatedOnly)},
          {"speedup", optional(p.speedup)}};
}

json settingsJson(const BenchSettings &s) {
  json modes = json::array();
  for (TimingMode m : s.modes)
    modes.push_back(toString(m));
  return {{"modes", std::move(modes)},
          {"min_samples", s.minSamples},
          {"min_time_s", s.minTimeSeconds},
          {"max_noise", s.maxNoise},
          {"timeout_s", s.timeoutSeconds},
          {"budget_s", optional(s.budgetSeconds)},
          {"quick", s.quick},
          {"quick_reason", s.quickReason},
          {"seeds", s.seeds}};
}

json deviceJson(const DeviceInfo &d) {
  return {{"driver", d.driver},
          {"name", d.name},
          {"type", d.type},
          {"vendor_id", d.vendorId},
          {"device_id", d.deviceId},
          {"uuid", d.uuid},
          {"driver_version", d.driverVersion},
          {"memory_bytes", d.memoryBytes},
          {"l2_bytes", d.l2Bytes},
          {"l2_source", toString(d.l2Source)},
          {"peak_copy_gbps", optional(d.peakCopyGBps)}};
}

json afterTimingJson(const std::optional<ClocksAfterTiming> &a) {
  if (!a)
    return nullptr;
  return {{"sm_clock_mhz", optional(a->smClockMHz)},
          {"memory_clock_mhz", optional(a->memoryClockMHz)},
          {"throttle_reasons", optional(a->throttleReasons)},
          {"throttle_reason_names", stringsJson(a->throttleReasonNames)}};
}

json environmentJson(const Environment &e) {
  json processes = json::array();
  for (const GpuProcess &p : e.otherProcesses)
    processes.push_back({{"pid", p.pid},
                         {"name", p.name},
                         {"memory_bytes", optional(p.memoryBytes)}});
  return {{"sm_clock_mhz", optional(e.smClockMHz)},
          {"default_sm_clock_mhz", optional(e.defaultSmClockMHz)},
          {"memory_clock_mhz", optional(e.memoryClockMHz)},
          {"throttle_reasons", optional(e.throttleReasons)},
          {"throttle_reason_names", stringsJson(e.throttleReasonNames)},
          {"other_processes", std::move(processes)},
          {"after_timing", afterTimingJson(e.afterTiming)},
          {"warnings", stringsJson(e.warnings)}};
}

json shardJson(const ShardInfo &s) {
  json plan = json::array();
  for (const ShardAssignment &a : s.plan)
    plan.push_back({{"benchmark", a.benchmark}, {"shard", a.shard}});
  return {{"index", s.index},
          {"count", s.count},
          {"source", s.source},
          {"balance", s.balance},
          {"plan", std::move(plan)}};
}

json reportJson(const BenchReport &r) {
  json benchmarks = json::array();
  for (const Benchmark &b : r.benchmarks)
    benchmarks.push_back(benchmarkJson(b));
  return {{"format", kBenchFormatName},
          {"schema_version", r.schemaVersion},
          {"tool", {{"name", r.tool.name}, {"version", r.tool.version}}},
          {"created_utc", r.createdUtc},
          {"build",
           {{"path", r.build.path},
            {"build_json_sha256", r.build.buildJsonSha256}}},
          {"interrupted", r.interrupted},
          {"settings", settingsJson(r.settings)},
          {"device", deviceJson(r.device)},
          {"environment", environmentJson(r.environment)},
          {"benchmarks", std::move(benchmarks)},
          {"program", r.program ? programJson(*r.program) : json(nullptr)},
          {"shard", r.shard ? shardJson(*r.shard) : json(nullptr)}};
}

} // namespace

StatusOr<std::string> renderBenchJson(const BenchReport &report) {
  return dumpStrictJson(reportJson(report), 1, "bench report");
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

/// One JSON object being decoded, with its path for messages. Every getter
/// returns an error naming "<file>: <path>.<key>: expected X, found Y".
class Fields {
public:
  Fields(const json &object, std::string source, std::string path)
      : j_(object), source_(std::move(source)), path_(std::move(path)) {}

  std::string where(std::string_view key) const {
    return source_ + ": " + (path_.empty() ? "" : path_ + ".") +
           std::string(key);
  }
  Status wrong(std::string_view key, std::string_view expected,
               const json &found) const {
    return invalidArgument(where(key) + ": expected " + std::string(expected) +
                           ", found " + typeName(found));
  }

  StatusOr<const json *> get(std::string_view key) const {
    auto it = j_.find(key);
    if (it == j_.end())
      return invalidArgument(where(key) +
                             ": missing (the file is not a complete "
                             "bench.json; regenerate it with kernel-bench "
                             "bench)");
    return &*it;
  }

  Status str(std::string_view key, std::string &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_string())
      return wrong(key, "a string", *v);
    out = v->get<std::string>();
    return okStatus();
  }
  Status boolean(std::string_view key, bool &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_boolean())
      return wrong(key, "true or false", *v);
    out = v->get<bool>();
    return okStatus();
  }
  Status number(std::string_view key, double &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_number())
      return wrong(key, "a number", *v);
    out = v->get<double>();
    return okStatus();
  }
  template <typename Int> Status integer(std::string_view key, Int &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_number_unsigned() && !(v->is_number_integer() && *v >= 0))
      return wrong(key, "a non-negative integer", *v);
    uint64_t value = v->get<uint64_t>();
    if (value > std::numeric_limits<Int>::max())
      return invalidArgument(where(key) + ": " + std::to_string(value) +
                             " is out of range");
    out = static_cast<Int>(value);
    return okStatus();
  }
  template <typename T, typename Getter>
  Status optionalOf(std::string_view key, std::optional<T> &out,
                    Getter getter) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (v->is_null()) {
      out.reset();
      return okStatus();
    }
    T value{};
    KB_RETURN_IF_ERROR((this->*getter)(key, value));
    out = value;
    return okStatus();
  }
  Status optNumber(std::string_view key, std::optional<double> &out) const {
    return optionalOf(key, out, &Fields::number);
  }
  Status optU64(std::string_view key, std::optional<uint64_t> &out) const {
    return optionalOf(key, out, &Fields::integer<uint64_t>);
  }
  template <typename E, size_t N>
  Status enumeration(std::string_view key, E &out,
                     const std::array<E, N> &values) const {
    std::string text;
    KB_RETURN_IF_ERROR(str(key, text));
    std::string expected;
    for (E e : values) {
      if (text == toString(e)) {
        out = e;
        return okStatus();
      }
      expected += (expected.empty() ? "" : " | ") + std::string(toString(e));
    }
    return invalidArgument(where(key) + ": expected one of " + expected +
                           ", found \"" + text + "\"");
  }
  /// Calls |each(Fields, index)| on every object of the array |key|.
  Status
  objects(std::string_view key,
          const std::function<Status(const Fields &, size_t)> &each) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_array())
      return wrong(key, "an array", *v);
    for (size_t i = 0; i < v->size(); ++i) {
      std::string path = (path_.empty() ? "" : path_ + ".") + std::string(key) +
                         "[" + std::to_string(i) + "]";
      const json &item = (*v)[i];
      if (!item.is_object())
        return invalidArgument(source_ + ": " + path +
                               ": expected an object, found " + typeName(item));
      KB_RETURN_IF_ERROR(each(Fields(item, source_, path), i));
    }
    return okStatus();
  }
  StatusOr<Fields> object(std::string_view key) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_object())
      return wrong(key, "an object", *v);
    return Fields(*v, source_,
                  (path_.empty() ? "" : path_ + ".") + std::string(key));
  }
  /// Optional object: none when null.
  StatusOr<std::optional<Fields>> optObject(std::string_view key) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (v->is_null())
      return std::optional<Fields>();
    KB_ASSIGN_OR_RETURN(Fields f, object(key));
    return std::optional<Fields>(std::move(f));
  }
  /// An array of numbers (|allowNull|: null elements become none).
  Status numbers(std::string_view key, std::vector<std::optional<double>> &out,
                 bool allowNull) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_array())
      return wrong(key, "an array of numbers", *v);
    out.clear();
    out.reserve(v->size());
    for (size_t i = 0; i < v->size(); ++i) {
      const json &e = (*v)[i];
      if (e.is_number())
        out.push_back(e.get<double>());
      else if (allowNull && e.is_null())
        out.push_back(std::nullopt);
      else
        return wrong(std::string(key) + "[" + std::to_string(i) + "]",
                     "a number", e);
    }
    return okStatus();
  }
  Status strings(std::string_view key, std::vector<std::string> &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_array())
      return wrong(key, "an array of strings", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string())
        return wrong(std::string(key) + "[" + std::to_string(i) + "]",
                     "a string", (*v)[i]);
      out.push_back((*v)[i].get<std::string>());
    }
    return okStatus();
  }
  Status unsigneds(std::string_view key, std::vector<uint64_t> &out) const {
    KB_ASSIGN_OR_RETURN(const json *v, get(key));
    if (!v->is_array())
      return wrong(key, "an array of integers", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_number_unsigned())
        return wrong(std::string(key) + "[" + std::to_string(i) + "]",
                     "a non-negative integer", (*v)[i]);
      out.push_back((*v)[i].get<uint64_t>());
    }
    return okStatus();
  }
  const std::string &path() const { return path_; }
  const std::string &source() const { return source_; }
  /// For keys added after schema version 1 (absent in older files).
  bool has(std::string_view key) const { return j_.find(key) != j_.end(); }

private:
  const json &j_;
  std::string source_;
  std::string path_;
};

constexpr std::array<TimingMode, 2> kModes = {TimingMode::Cold,
                                              TimingMode::Hot};
constexpr std::array<BenchStatus, 4> kStatuses = {
    BenchStatus::Ok, BenchStatus::Incorrect, BenchStatus::Error,
    BenchStatus::Skipped};
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

Status readResources(const Fields &f, ResourceUsage &r) {
  KB_RETURN_IF_ERROR(f.integer("registers", r.registers));
  KB_RETURN_IF_ERROR(f.integer("stack_frame_bytes", r.stackFrameBytes));
  KB_RETURN_IF_ERROR(f.integer("spill_store_bytes", r.spillStoreBytes));
  KB_RETURN_IF_ERROR(f.integer("spill_load_bytes", r.spillLoadBytes));
  KB_RETURN_IF_ERROR(f.integer("shared_memory_bytes", r.sharedMemoryBytes));
  KB_RETURN_IF_ERROR(f.integer("barriers", r.barriers));
  return f.integer("constant_memory_bytes", r.constantMemoryBytes);
}

Status readSummary(const Fields &f, Summary &s) {
  KB_RETURN_IF_ERROR(f.number("min", s.min));
  KB_RETURN_IF_ERROR(f.number("max", s.max));
  KB_RETURN_IF_ERROR(f.number("mean", s.mean));
  KB_RETURN_IF_ERROR(f.number("median", s.median));
  KB_RETURN_IF_ERROR(f.number("q1", s.q1));
  KB_RETURN_IF_ERROR(f.number("q3", s.q3));
  KB_RETURN_IF_ERROR(f.number("stdev", s.stdev));
  KB_RETURN_IF_ERROR(f.number("relative_stdev", s.relativeStdev));
  KB_RETURN_IF_ERROR(f.number("iqr", s.iqr));
  return f.integer("count", s.count);
}

Status readDerived(const Fields &f, Derived &d) {
  KB_RETURN_IF_ERROR(f.optNumber("gb_per_s", d.gbPerSecond));
  KB_RETURN_IF_ERROR(f.optNumber("gflop_per_s", d.gflopPerSecond));
  KB_RETURN_IF_ERROR(f.optNumber("percent_of_peak", d.percentOfPeak));
  KB_RETURN_IF_ERROR(f.optNumber("speedup_vs_reference", d.speedupVsReference));
  return f.boolean("suspicious_speedup", d.suspiciousSpeedup);
}

Status readSamples(const Fields &f, std::vector<Sample> &samples) {
  std::vector<std::optional<double>> gpu, host, clock;
  KB_RETURN_IF_ERROR(f.numbers("gpu_ns", gpu, /*allowNull=*/false));
  KB_RETURN_IF_ERROR(f.numbers("host_ns", host, /*allowNull=*/false));
  KB_ASSIGN_OR_RETURN(const json *clockJson, f.get("sm_clock_mhz"));
  if (!clockJson->is_null())
    KB_RETURN_IF_ERROR(f.numbers("sm_clock_mhz", clock, /*allowNull=*/true));
  if (host.size() != gpu.size() ||
      (!clock.empty() && clock.size() != gpu.size()))
    return invalidArgument(
        f.where("gpu_ns") + ": " + std::to_string(gpu.size()) +
        " samples, but host_ns has " + std::to_string(host.size()) +
        (clock.empty()
             ? std::string()
             : " and sm_clock_mhz has " + std::to_string(clock.size())) +
        "; the arrays must have one entry per sample");
  samples.resize(gpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    // A time no clock can measure: a corrupt or forged report, whose rows
    // would otherwise get confident verdicts (a negative time is "faster").
    for (const auto *times : {&gpu, &host})
      if (!std::isfinite(*(*times)[i]) || *(*times)[i] <= 0)
        return invalidArgument(
            f.where(times == &gpu ? "gpu_ns" : "host_ns") + "[" +
            std::to_string(i) + "]: expected a positive time in ns, found " +
            json(*(*times)[i]).dump() +
            "; the report is corrupt (samples are never zero or negative)");
    samples[i].gpuNs = *gpu[i];
    samples[i].hostNs = *host[i];
    if (!clock.empty())
      samples[i].smClockMHz = clock[i];
  }
  return okStatus();
}

Status readTiming(const Fields &f, Timing &t) {
  KB_RETURN_IF_ERROR(f.enumeration("mode", t.mode, kModes));
  KB_RETURN_IF_ERROR(f.integer("dispatches_per_sample", t.dispatchesPerSample));
  KB_ASSIGN_OR_RETURN(Fields samples, f.object("samples"));
  KB_RETURN_IF_ERROR(readSamples(samples, t.samples));
  KB_RETURN_IF_ERROR(f.integer("discarded", t.discarded));
  KB_ASSIGN_OR_RETURN(Fields summary, f.object("summary"));
  KB_RETURN_IF_ERROR(readSummary(summary, t.summary));
  KB_RETURN_IF_ERROR(f.boolean("noise_target_met", t.noiseTargetMet));
  KB_RETURN_IF_ERROR(f.enumeration("stop_reason", t.stopReason, kStopReasons));
  KB_ASSIGN_OR_RETURN(Fields derived, f.object("derived"));
  return readDerived(derived, t.derived);
}

Status readCorrectness(const Fields &f, Correctness &c) {
  KB_RETURN_IF_ERROR(f.enumeration("status", c.status, kCorrectness));
  KB_RETURN_IF_ERROR(f.unsigneds("seeds", c.seeds));
  KB_RETURN_IF_ERROR(
      f.objects("first_mismatches", [&](const Fields &m, size_t) -> Status {
        Mismatch &out = c.firstMismatches.emplace_back();
        KB_RETURN_IF_ERROR(m.str("output", out.output));
        KB_RETURN_IF_ERROR(m.integer("index", out.index));
        KB_RETURN_IF_ERROR(m.str("expected", out.expected));
        return m.str("actual", out.actual);
      }));
  return f.str("note", c.note);
}

Status readVariant(const Fields &f, Variant &v) {
  KB_RETURN_IF_ERROR(f.str("name", v.name));
  KB_RETURN_IF_ERROR(f.enumeration("role", v.role, kRoles));
  KB_RETURN_IF_ERROR(f.str("target", v.target));
  KB_RETURN_IF_ERROR(f.str("object_sha256", v.objectSha256));
  KB_ASSIGN_OR_RETURN(std::optional<Fields> resources,
                      f.optObject("resources"));
  if (resources)
    KB_RETURN_IF_ERROR(readResources(*resources, v.resources.emplace()));
  KB_RETURN_IF_ERROR(f.optNumber("load_ms", v.loadMs));
  KB_ASSIGN_OR_RETURN(Fields correctness, f.object("correctness"));
  KB_RETURN_IF_ERROR(readCorrectness(correctness, v.correctness));
  KB_RETURN_IF_ERROR(f.optU64("bytes_moved", v.bytesMoved));
  KB_RETURN_IF_ERROR(f.optNumber("flops", v.flops));
  return f.objects("timings", [&](const Fields &t, size_t) {
    return readTiming(t, v.timings.emplace_back());
  });
}

constexpr std::array<const char *, 4> kVerdicts = {"FASTER", "SLOWER", "SAME",
                                                   "INCONCLUSIVE"};

Status readPaired(const Fields &f, PairedComparison &p) {
  KB_RETURN_IF_ERROR(f.enumeration("mode", p.mode, kModes));
  KB_RETURN_IF_ERROR(f.str("baseline_build", p.baselineBuild));
  KB_RETURN_IF_ERROR(f.integer("pairs", p.pairs));
  KB_RETURN_IF_ERROR(f.number("ratio", p.ratio));
  KB_RETURN_IF_ERROR(f.number("low", p.low));
  KB_RETURN_IF_ERROR(f.number("high", p.high));
  KB_RETURN_IF_ERROR(f.number("threshold", p.threshold));
  KB_RETURN_IF_ERROR(f.str("verdict", p.verdict));
  if (std::find(kVerdicts.begin(), kVerdicts.end(), p.verdict) ==
      kVerdicts.end())
    return invalidArgument(f.where("verdict") +
                           ": expected one of FASTER | SLOWER | SAME | "
                           "INCONCLUSIVE, found \"" +
                           p.verdict + "\"");
  return okStatus();
}

Status readBenchmark(const Fields &f, Benchmark &b) {
  KB_RETURN_IF_ERROR(f.str("name", b.name));
  KB_RETURN_IF_ERROR(f.str("module", b.moduleFile));
  if (f.has("kernel")) // added to version 1 later: absent = the program's
    KB_RETURN_IF_ERROR(f.str("kernel", b.kernel));
  KB_RETURN_IF_ERROR(f.str("executable", b.executable));
  KB_RETURN_IF_ERROR(f.str("export", b.exportName));
  KB_RETURN_IF_ERROR(f.str("workload", b.workload));
  KB_RETURN_IF_ERROR(f.enumeration("status", b.status, kStatuses));
  KB_RETURN_IF_ERROR(f.str("reason", b.reason));
  KB_RETURN_IF_ERROR(f.objects("variants", [&](const Fields &v, size_t) {
    return readVariant(v, b.variants.emplace_back());
  }));
  if (!f.has("paired")) // added to version 1 later: absent = none
    return okStatus();
  return f.objects("paired", [&](const Fields &p, size_t) {
    return readPaired(p, b.paired.emplace_back());
  });
}

Status readOptionalTiming(const Fields &f, std::string_view key,
                          std::optional<Timing> &out) {
  KB_ASSIGN_OR_RETURN(std::optional<Fields> t, f.optObject(key));
  if (t)
    KB_RETURN_IF_ERROR(readTiming(*t, out.emplace()));
  return okStatus();
}

Status readProgram(const Fields &f, ProgramResult &p) {
  KB_RETURN_IF_ERROR(f.str("module", p.module));
  KB_RETURN_IF_ERROR(f.str("entry_function", p.entryFunction));
  KB_RETURN_IF_ERROR(f.enumeration("status", p.status, kStatuses));
  KB_RETURN_IF_ERROR(f.str("reason", p.reason));
  KB_RETURN_IF_ERROR(
      readOptionalTiming(f, "with_substitutions", p.withSubstitutions));
  KB_RETURN_IF_ERROR(readOptionalTiming(f, "generated_only", p.generatedOnly));
  return f.optNumber("speedup", p.speedup);
}

Status readSettings(const Fields &f, BenchSettings &s) {
  std::vector<std::string> modes;
  KB_RETURN_IF_ERROR(f.strings("modes", modes));
  s.modes.clear();
  for (const std::string &m : modes) {
    if (m == "cold")
      s.modes.push_back(TimingMode::Cold);
    else if (m == "hot")
      s.modes.push_back(TimingMode::Hot);
    else
      return invalidArgument(f.where("modes") +
                             ": expected \"cold\" or \"hot\", found \"" + m +
                             "\"");
  }
  KB_RETURN_IF_ERROR(f.integer("min_samples", s.minSamples));
  KB_RETURN_IF_ERROR(f.number("min_time_s", s.minTimeSeconds));
  KB_RETURN_IF_ERROR(f.number("max_noise", s.maxNoise));
  KB_RETURN_IF_ERROR(f.number("timeout_s", s.timeoutSeconds));
  KB_RETURN_IF_ERROR(f.optNumber("budget_s", s.budgetSeconds));
  KB_RETURN_IF_ERROR(f.boolean("quick", s.quick));
  KB_RETURN_IF_ERROR(f.str("quick_reason", s.quickReason));
  return f.integer("seeds", s.seeds);
}

Status readDevice(const Fields &f, DeviceInfo &d) {
  KB_RETURN_IF_ERROR(f.str("driver", d.driver));
  KB_RETURN_IF_ERROR(f.str("name", d.name));
  KB_RETURN_IF_ERROR(f.str("type", d.type));
  KB_RETURN_IF_ERROR(f.integer("vendor_id", d.vendorId));
  KB_RETURN_IF_ERROR(f.integer("device_id", d.deviceId));
  KB_RETURN_IF_ERROR(f.str("uuid", d.uuid));
  KB_RETURN_IF_ERROR(f.str("driver_version", d.driverVersion));
  KB_RETURN_IF_ERROR(f.integer("memory_bytes", d.memoryBytes));
  KB_RETURN_IF_ERROR(f.integer("l2_bytes", d.l2Bytes));
  KB_RETURN_IF_ERROR(f.enumeration("l2_source", d.l2Source, kL2Sources));
  return f.optNumber("peak_copy_gbps", d.peakCopyGBps);
}

Status readAfterTiming(const Fields &f, std::optional<ClocksAfterTiming> &out) {
  // Added within schema 1: reports written before it have none.
  if (!f.has("after_timing"))
    return okStatus();
  KB_ASSIGN_OR_RETURN(std::optional<Fields> a, f.optObject("after_timing"));
  if (!a)
    return okStatus();
  ClocksAfterTiming &c = out.emplace();
  KB_RETURN_IF_ERROR(a->optNumber("sm_clock_mhz", c.smClockMHz));
  KB_RETURN_IF_ERROR(a->optNumber("memory_clock_mhz", c.memoryClockMHz));
  KB_RETURN_IF_ERROR(a->optU64("throttle_reasons", c.throttleReasons));
  return a->strings("throttle_reason_names", c.throttleReasonNames);
}

Status readEnvironment(const Fields &f, Environment &e) {
  KB_RETURN_IF_ERROR(f.optNumber("sm_clock_mhz", e.smClockMHz));
  KB_RETURN_IF_ERROR(f.optNumber("default_sm_clock_mhz", e.defaultSmClockMHz));
  KB_RETURN_IF_ERROR(f.optNumber("memory_clock_mhz", e.memoryClockMHz));
  KB_RETURN_IF_ERROR(f.optU64("throttle_reasons", e.throttleReasons));
  KB_RETURN_IF_ERROR(f.strings("throttle_reason_names", e.throttleReasonNames));
  KB_RETURN_IF_ERROR(
      f.objects("other_processes", [&](const Fields &p, size_t) -> Status {
        GpuProcess &out = e.otherProcesses.emplace_back();
        KB_RETURN_IF_ERROR(p.integer("pid", out.pid));
        KB_RETURN_IF_ERROR(p.str("name", out.name));
        return p.optU64("memory_bytes", out.memoryBytes);
      }));
  KB_RETURN_IF_ERROR(readAfterTiming(f, e.afterTiming));
  return f.strings("warnings", e.warnings);
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

Status readShard(const Fields &f, ShardInfo &s) {
  KB_RETURN_IF_ERROR(f.integer("index", s.index));
  KB_RETURN_IF_ERROR(f.integer("count", s.count));
  KB_RETURN_IF_ERROR(f.str("source", s.source));
  KB_RETURN_IF_ERROR(f.str("balance", s.balance));
  if (s.count == 0 || s.index >= s.count)
    return invalidArgument(f.where("index") + ": shard " +
                           std::to_string(s.index) + " of " +
                           std::to_string(s.count) + " is out of range");
  return f.objects("plan", [&](const Fields &a, size_t) -> Status {
    ShardAssignment &out = s.plan.emplace_back();
    KB_RETURN_IF_ERROR(a.str("benchmark", out.benchmark));
    KB_RETURN_IF_ERROR(a.integer("shard", out.shard));
    if (out.shard >= s.count)
      return invalidArgument(
          a.where("shard") + ": " + std::to_string(out.shard) +
          " is out of range for " + std::to_string(s.count) + " shards");
    return okStatus();
  });
}

Status readReport(const Fields &f, BenchReport &r) {
  KB_RETURN_IF_ERROR(f.integer("schema_version", r.schemaVersion));
  KB_ASSIGN_OR_RETURN(Fields tool, f.object("tool"));
  KB_RETURN_IF_ERROR(tool.str("name", r.tool.name));
  KB_RETURN_IF_ERROR(tool.str("version", r.tool.version));
  KB_RETURN_IF_ERROR(f.str("created_utc", r.createdUtc));
  KB_ASSIGN_OR_RETURN(Fields build, f.object("build"));
  KB_RETURN_IF_ERROR(build.str("path", r.build.path));
  KB_RETURN_IF_ERROR(build.str("build_json_sha256", r.build.buildJsonSha256));
  KB_RETURN_IF_ERROR(f.boolean("interrupted", r.interrupted));
  KB_ASSIGN_OR_RETURN(Fields settings, f.object("settings"));
  KB_RETURN_IF_ERROR(readSettings(settings, r.settings));
  KB_ASSIGN_OR_RETURN(Fields device, f.object("device"));
  KB_RETURN_IF_ERROR(readDevice(device, r.device));
  KB_ASSIGN_OR_RETURN(Fields environment, f.object("environment"));
  KB_RETURN_IF_ERROR(readEnvironment(environment, r.environment));
  std::set<std::string> names;
  KB_RETURN_IF_ERROR(
      f.objects("benchmarks", [&](const Fields &b, size_t) -> Status {
        Benchmark &out = r.benchmarks.emplace_back();
        KB_RETURN_IF_ERROR(readBenchmark(b, out));
        if (!names.insert(out.name).second)
          return invalidArgument(b.where("name") + ": \"" + out.name +
                                 "\" appears twice; benchmark names are "
                                 "unique in a report");
        return okStatus();
      }));
  KB_ASSIGN_OR_RETURN(std::optional<Fields> program, f.optObject("program"));
  if (program)
    KB_RETURN_IF_ERROR(readProgram(*program, r.program.emplace()));
  // Added within schema 1: reports written before it have no "shard".
  if (f.has("shard")) {
    KB_ASSIGN_OR_RETURN(std::optional<Fields> shard, f.optObject("shard"));
    if (shard)
      KB_RETURN_IF_ERROR(readShard(*shard, r.shard.emplace()));
  }
  return okStatus();
}

} // namespace

StatusOr<BenchReport> parseBenchJson(std::string_view text,
                                     std::string_view source) {
  std::string src(source);
  KB_ASSIGN_OR_RETURN(json j, parseStrictJson(text, source));
  KB_RETURN_IF_ERROR(checkIdentity(j, src));
  BenchReport report;
  KB_RETURN_IF_ERROR(readReport(Fields(j, src, ""), report));
  return report;
}

StatusOr<BenchReport> readBenchJson(const std::filesystem::path &path) {
  KB_ASSIGN_OR_RETURN(std::string text, kb::readFile(path, kBenchReportInput));
  return parseBenchJson(text, path.string());
}

} // namespace kb::report
