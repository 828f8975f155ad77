//===- workbench/bench/bench_engine.cpp - The bench engine ----------------===//
//
// Plans the build's benchmarks (bench_input.h), measures the device's copy
// bandwidth once, runs each benchmark in a fresh worker (worker.h) and
// gathers the workers' one-benchmark reports into the run's report. On
// Ctrl-C / SIGTERM the running worker's group is signalled, the finished
// benchmarks are kept and the outcome says which signal it was.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bench_engine.h"

#include "common/sha256.h"
#include "toolchains/build_cache.h"
#include "workbench/bench/bench_plan.h"
#include "workbench/bench/bench_report_fill.h"
#include "workbench/bench/bench_worker.h"
#include "workbench/bench/compute_sanitizer.h"
#include "runtime/bench/benchmark.h"
#include "workbench/build/build_resources.h"
#include "workbench/support/exit_codes.h"
#include "workbench/support/interrupt_forwarder.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/compare.h"
#include "workbench/support/worker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace kb::workbench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// The measured peak copy bandwidth is cached beside the build cache
/// (BuildCache::defaultDirectory); "" (no cache, probe every run) without one.
std::string peakCacheFile() {
  StatusOr<fs::path> dir = toolchains::BuildCache::defaultDirectory();
  return dir.ok() ? (*dir / "copy-bandwidth.tsv").string() : "";
}

report::Benchmark errorRow(const PlannedBenchmark &p,
                           report::BenchStatus status,
                           const std::string &reason) {
  report::Benchmark b;
  b.name = p.displayName;
  b.moduleFile = p.modulePath;
  b.kernel = p.kernel;
  b.sweep = p.sweep;
  b.status = status;
  b.reason = reason;
  return b;
}

/// Adds a failed benchmark (or program) to |run|.
void addFailure(report::BenchReport &run, const PlannedBenchmark &p,
                report::BenchStatus status, const std::string &reason) {
  if (!p.benchmark.empty() || !p.loadError.empty()) {
    run.benchmarks.push_back(errorRow(p, status, reason));
    return;
  }
  report::ProgramResult program;
  program.module = p.modulePath;
  program.entryFunction = p.displayName.substr(8); // "program NAME"
  program.status = status;
  program.reason = reason;
  run.program = std::move(program);
}

/// Parses "progress <variant> <mode> <count> <noise>" into a status text.
std::string progressText(const std::string &message) {
  std::istringstream in(message.substr(9));
  std::string variant, mode;
  size_t count = 0;
  double noise = -1;
  in >> variant >> mode >> count >> noise;
  char buf[160];
  if (noise >= 0)
    std::snprintf(buf, sizeof buf, "%s %s: %zu samples, noise %.2f%%",
                  variant.c_str(), mode.c_str(), count, 100 * noise);
  else
    std::snprintf(buf, sizeof buf, "%s %s: %zu samples", variant.c_str(),
                  mode.c_str(), count);
  return buf;
}

/// What the parent learns from its workers across benchmarks.
struct RunState {
  bool haveDevice = false; // |run|'s device and settings came from a worker
  /// The device the first worker of an `auto` run opened ("vulkan:0"): the
  /// rest of the run uses it, so that one report is one device.
  std::string pinnedDevice;
  /// Why the last worker found no usable device (it exited 77).
  std::string unavailable;
  /// BUILD/build.json: the workers read what kernels declare from it.
  std::string buildJson;
  /// Seconds of --budget left as the next worker starts; none: no budget.
  std::optional<double> budgetLeftS;
};

/// `__worker bench ...` for |p|: the settings (on the pinned device), live
/// progress only for a terminal, the --baseline build's module.
std::vector<std::string> workerCommand(const PlannedBenchmark &p,
                                       const PlannedBenchmark *baseline,
                                       const BenchRequest &f,
                                       const RunState &state, bool live) {
  std::vector<std::string> args = {"bench", p.modulePath};
  if (!state.buildJson.empty())
    args.insert(args.end(), {"--build-json", state.buildJson});
  if (!p.benchmark.empty())
    args.insert(args.end(), {"--benchmark", p.benchmark});
  BenchSettings settings = f.settings;
  if (!state.pinnedDevice.empty())
    settings.device = state.pinnedDevice;
  std::vector<std::string> flags = workerArgs(settings);
  args.insert(args.end(), flags.begin(), flags.end());
  if (live)
    args.push_back("--progress");
  if (state.budgetLeftS) // sampling stops where the budget does
    args.insert(args.end(),
                {"--budget-left", std::to_string(*state.budgetLeftS)});
  if (baseline) {
    args.insert(args.end(), {"--baseline-module", baseline->modulePath});
    if (!baseline->benchmark.empty())
      args.insert(args.end(), {"--baseline-benchmark", baseline->benchmark});
  }
  return args;
}

/// The watchdog of the copy-bandwidth probe: it is not a benchmark, and a
/// loaded CPU device can take several seconds for it.
constexpr double kPeakProbeWatchdogS = 120;

/// Measures the device's copy bandwidth (cached per device) in a worker of
/// its own, on the device the first runnable benchmark would open, before
/// any benchmark: a benchmark's watchdog then times only the benchmark. A
/// probe that fails is a warning, and the workers then skip it (no % of
/// peak) instead of paying for it again.
void probePeakFirst(const std::vector<PlannedBenchmark> &planned,
                    BenchRequest &f, const InterruptForwarder &interrupt,
                    report::BenchReport &run) {
  if (f.settings.peakCache.empty())
    return;
  auto first = std::find_if(
      planned.begin(), planned.end(),
      [](const PlannedBenchmark &p) { return p.loadError.empty(); });
  if (first == planned.end())
    return;
  WorkerOptions worker;
  worker.args = {"bench", first->modulePath, "--peak-only"};
  if (!first->benchmark.empty())
    worker.args.insert(worker.args.end(), {"--benchmark", first->benchmark});
  std::vector<std::string> flags = workerArgs(f.settings);
  worker.args.insert(worker.args.end(), flags.begin(), flags.end());
  worker.timeoutS = std::max(kPeakProbeWatchdogS, f.watchdogS);
  auto spawned = runWorker(worker);
  std::string why;
  if (!spawned.ok())
    why = spawned.status().message();
  else if (std::string death = spawned->death(); !death.empty())
    why = "the worker process " + death;
  else if (spawned->process.exitCode == kExitUnavailable)
    return; // no device: the benchmarks say so
  else if (spawned->process.exitCode != kExitOk)
    why = spawned->diagnostics;
  if (why.empty() || interrupt.signal())
    return;
  while (!why.empty() && why.back() == '\n')
    why.pop_back();
  run.environment.warnings.push_back("copy-bandwidth probe failed: " + why);
  f.settings.peakCache.clear();
}

/// What the first worker's report says about the device and the run: the
/// device, which settings applied (quick on a CPU device; the budget is the
/// parent's) and the GPU's state (NVML) as it found it. Its warnings are
/// added by the caller, with every later worker's.
void adoptDevice(const report::BenchReport &first, report::BenchReport &run) {
  std::optional<double> budget = run.settings.budgetSeconds;
  run.device = first.device;
  run.settings = first.settings;
  run.settings.budgetSeconds = budget;
  std::vector<std::string> warnings = std::move(run.environment.warnings);
  run.environment = first.environment;
  run.environment.warnings = std::move(warnings);
}

/// A worker's protocol line: its sampling progress and phase for the live
/// line (|live|), the device it opened into |opened|.
void onWorkerMessage(const std::string &message, bool live,
                     const std::string &benchmark, BenchObserver &observer,
                     std::string &opened) {
  if (live && message.compare(0, 9, "progress ") == 0) {
    observer.sampling(benchmark, progressText(message));
  } else if (live && message.compare(0, 6, "stage ") == 0) {
    // "stage WORK: correctness check": the phase.
    size_t colon = message.rfind(": ");
    observer.sampling(
        benchmark, message.substr(colon == std::string::npos ? 6 : colon + 2));
  } else if (message.rfind(kDeviceMessage, 0) == 0) {
    opened = message.substr(std::string(kDeviceMessage).size());
  }
}

/// Runs one benchmark in a fresh worker (with |baseline|, the same benchmark
/// of the --baseline build, timed in lockstep; under |wrapper|, a program
/// that runs the worker, when not empty) and adds its result (or an ERROR
/// row) to |run|. Returns the worker's exit code.
int runOne(const PlannedBenchmark &p, const PlannedBenchmark *baseline,
           const BenchRequest &f, BenchObserver &observer,
           report::BenchReport &run, RunState &state,
           const std::vector<std::string> &wrapper = {}) {
  if (!p.loadError.empty()) {
    addFailure(run, p, report::BenchStatus::Error, p.loadError);
    return 0;
  }
  bool live = observer.wantsSampleProgress();
  WorkerOptions worker;
  worker.wrapper = wrapper;
  worker.args = workerCommand(p, baseline, f, state, live);
  worker.timeoutS = f.watchdogS;
  std::string opened;
  worker.onMessage = [&](const std::string &message) {
    onWorkerMessage(message, live, p.displayName, observer, opened);
  };
  auto spawned = runWorker(worker);
  if (!spawned.ok()) {
    addFailure(run, p, report::BenchStatus::Error, spawned.status().message());
    return 0;
  }
  std::string death = spawned->death();
  if (!death.empty()) {
    std::string reason = "the worker process " + death;
    if (!spawned->lastStage.empty())
      reason += "; it was running " + spawned->lastStage;
    addFailure(run, p, report::BenchStatus::Error, reason);
    return 0;
  }
  int exitCode = spawned->process.exitCode;
  auto result =
      report::parseBenchJson(spawned->process.stdoutText, "the bench worker");
  if (!result.ok()) {
    std::string diagnostics = spawned->diagnostics;
    while (!diagnostics.empty() && diagnostics.back() == '\n')
      diagnostics.pop_back();
    std::string reason =
        diagnostics.empty()
            ? "the worker exited with code " + std::to_string(exitCode) +
                  " and no result: " + result.status().message()
            : diagnostics;
    // No device this benchmark can run on: skipped, not failed; the run
    // exits 77 only when no benchmark found one.
    bool unavailable = exitCode == kExitUnavailable;
    if (unavailable)
      state.unavailable = reason;
    addFailure(run, p,
               unavailable ? report::BenchStatus::Skipped
                           : report::BenchStatus::Error,
               reason);
    return exitCode;
  }
  if (f.settings.device == "auto" && state.pinnedDevice.empty())
    state.pinnedDevice = opened;
  if (!state.haveDevice) {
    adoptDevice(*result, run);
    state.haveDevice = true;
  }
  for (const std::string &w : result->environment.warnings)
    if (std::find(run.environment.warnings.begin(),
                  run.environment.warnings.end(),
                  w) == run.environment.warnings.end())
      run.environment.warnings.push_back(w);
  for (report::Benchmark &b : result->benchmarks) {
    b.name = p.displayName;
    b.kernel = p.kernel;
    b.sweep = p.sweep;
    run.benchmarks.push_back(std::move(b));
  }
  if (result->program)
    run.program = std::move(result->program);
  return exitCode;
}

/// runOne, or under --sanitize on a CUDA device once per compute-sanitizer
/// tool (compute_sanitizer.h), the first pass making the row.
int runOneChecked(const PlannedBenchmark &p, const PlannedBenchmark *baseline,
                  const BenchRequest &f, BenchObserver &observer,
                  report::BenchReport &run, RunState &state) {
  if (!f.settings.sanitize || f.settings.device.rfind("cuda", 0) != 0 ||
      !p.loadError.empty())
    return runOne(p, baseline, f, observer, run, state);
  RunState passState = state; // the later passes' device is the first's
  BenchRequest slower = f;    // the tools slow the kernels down
  slower.watchdogS *= kSanitizerSlowdown;
  StatusOr<int> code = sanitizeBenchmarkOnCuda(
      p.modulePath, run,
      [&](const std::vector<std::string> &wrapper, report::BenchReport &into) {
        return runOne(p, baseline, slower, observer, into,
                      &into == &run ? state : passState, wrapper);
      });
  if (code.ok())
    return *code;
  bool unavailable = code.status().isUnavailable();
  if (unavailable)
    state.unavailable = code.status().message();
  addFailure(run, p,
             unavailable ? report::BenchStatus::Skipped
                         : report::BenchStatus::Error,
             code.status().message());
  return unavailable ? kExitUnavailable : 0;
}

/// ptxas's figures from BUILD/build.json for every variant whose object the
/// build wrote (build_resources.h); a warning when build.json is unreadable.
void attachResources(report::BenchReport &run, const fs::path &build) {
  auto objects = readObjectResources(build / "build.json");
  if (!objects.ok()) {
    if (objects.status().code() != StatusCode::NotFound)
      run.environment.warnings.push_back("no ptxas resources: " +
                                         objects.status().message());
    return;
  }
  for (report::Benchmark &b : run.benchmarks)
    for (report::Variant &v : b.variants)
      if (auto it = objects->find(v.objectSha256); it != objects->end())
        v.resources = it->second;
}

/// The --baseline build (a directory or a bundle, opened for the whole run)
/// and its benchmarks by display name.
struct BaselinePlan {
  OpenedBuild build;
  std::map<std::string, PlannedBenchmark> byName; // empty without --baseline
};

/// The --baseline build's benchmarks; what only one build has becomes a
/// warning in |run|. InvalidArgument for a bad --threshold or filter;
/// FailedPrecondition for a bundle that cannot be used.
StatusOr<BaselinePlan>
planBaseline(const BenchRequest &f,
             const std::vector<PlannedBenchmark> &planned,
             report::BenchReport &run) {
  if (f.baseline.empty())
    return BaselinePlan{};
  double threshold = 0;
  if (std::string error = report::parseThreshold(f.threshold, threshold);
      !error.empty())
    return invalidArgument("--threshold: " + error);
  auto opened = openBuild(f.baseline);
  if (!opened.ok()) // its message names the bundle
    return opened.status().withContext("--baseline");
  BaselinePlan plan{std::move(*opened), {}};
  auto base = planBenchmarks(plan.build.buildDir, f.select);
  if (!base.ok())
    return base.status().withContext("--baseline " + f.baseline);
  // The whole program is not paired (it is timed end to end as usual).
  std::map<std::string, PlannedBenchmark> &byName = plan.byName;
  for (const PlannedBenchmark &b : *base)
    if (!b.benchmark.empty() && b.loadError.empty())
      byName[b.displayName] = b;
  std::set<std::string> here;
  std::string missing, extra;
  for (const PlannedBenchmark &p : planned) {
    here.insert(p.displayName);
    if (!p.benchmark.empty() && !byName.count(p.displayName))
      missing += (missing.empty() ? "" : ", ") + p.displayName;
  }
  for (const auto &[name, b] : byName)
    if (!here.count(name))
      extra += (extra.empty() ? "" : ", ") + name;
  if (!missing.empty())
    run.environment.warnings.push_back("--baseline: not in " + f.baseline +
                                       " (timed alone): " + missing);
  if (!extra.empty())
    run.environment.warnings.push_back("--baseline: only in " + f.baseline +
                                       " (not timed): " + extra);
  return plan;
}

/// Paired verdicts for every benchmark that timed a baseline variant
/// (compare.h comparePaired).
void pairWithBaseline(report::BenchReport &run, const BenchRequest &f) {
  if (f.baseline.empty())
    return;
  report::CompareOptions options;
  report::parseThreshold(f.threshold, options.threshold); // checked before
  for (report::Benchmark &b : run.benchmarks) {
    const report::Variant *candidate = nullptr, *base = nullptr;
    for (const report::Variant &v : b.variants)
      if (v.name == bench::kBaselineVariant)
        base = &v;
      else if (!candidate && v.role == report::VariantRole::Candidate)
        candidate = &v;
    if (!candidate || !base)
      continue;
    for (const report::Timing &t : candidate->timings)
      for (const report::Timing &bt : base->timings) {
        if (bt.mode != t.mode)
          continue;
        std::string id = b.name + "/" + report::toString(t.mode);
        auto paired = report::comparePaired(bt, t, id, options);
        if (!paired.ok()) {
          run.environment.warnings.push_back("--baseline: " +
                                             paired.status().message());
          continue;
        }
        paired->baselineBuild = f.baseline;
        b.paired.push_back(*paired);
      }
  }
}

std::string nowUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Runs the planned benchmarks in turn into |run|, until the budget is
/// spent or an interrupt; returns the interrupt's signal (0 when none).
int runPlanned(const std::vector<PlannedBenchmark> &planned,
               const BaselinePlan &baseline, const BenchRequest &f,
               BenchObserver &observer, report::BenchReport &run,
               RunState &state, const InterruptForwarder &interrupt,
               Clock::time_point wallStart) {
  for (const PlannedBenchmark &p : planned) {
    if (interrupt.signal())
      break;
    double elapsed =
        std::chrono::duration<double>(Clock::now() - wallStart).count();
    if (f.budgetS > 0 && elapsed >= f.budgetS) {
      addFailure(run, p, report::BenchStatus::Skipped,
                 "the global budget (--budget) was spent before it started");
      continue;
    }
    if (f.budgetS > 0)
      state.budgetLeftS = f.budgetS - elapsed;
    observer.started(p.displayName);
    // An interrupted benchmark is not a result: remember what its worker may
    // add to |run| (without copying earlier benchmarks' samples) to take it
    // back.
    size_t benchmarksBefore = run.benchmarks.size();
    size_t warningsBefore = run.environment.warnings.size();
    bool hadProgram = run.program.has_value();
    report::DeviceInfo deviceBefore = run.device;
    report::BenchSettings settingsBefore = run.settings;
    auto base = baseline.byName.find(p.displayName);
    runOneChecked(p, base != baseline.byName.end() ? &base->second : nullptr, f,
                  observer, run, state);
    if (interrupt.signal()) {
      run.benchmarks.resize(benchmarksBefore);
      run.environment.warnings.resize(warningsBefore);
      if (!hadProgram)
        run.program.reset();
      run.device = std::move(deviceBefore);
      run.settings = std::move(settingsBefore);
      break;
    }
    const report::Benchmark *last =
        run.benchmarks.empty() ? nullptr : &run.benchmarks.back();
    bool failed = last && last->name == p.displayName &&
                  last->status != report::BenchStatus::Ok;
    observer.finished(p.displayName, failed ? last : nullptr);
  }
  return interrupt.signal();
}

/// --sanitize: `auto` means a Vulkan device (the Khronos layer ships with
/// Debian; a CUDA device named explicitly runs under compute-sanitizer, from
/// the full toolkit); the whole program is left to `run --sanitize` (one
/// dispatch per benchmark is what a finding names).
Status applySanitize(BenchRequest &f) {
  if (!f.settings.sanitize)
    return okStatus();
  if (f.settings.device == "auto")
    f.settings.device = "vulkan";
  if (f.settings.device.rfind("cuda", 0) == 0) // once, not per benchmark
    KB_RETURN_IF_ERROR(findComputeSanitizer().status());
  if (!f.baseline.empty())
    return invalidArgument("--sanitize times nothing, so it takes no "
                           "--baseline");
  f.select.dispatchesOnly = true;
  return okStatus();
}

} // namespace

bool anyBenchmarkFailed(const report::BenchReport &run) {
  for (const report::Benchmark &b : run.benchmarks)
    if (b.status == report::BenchStatus::Incorrect ||
        b.status == report::BenchStatus::Error ||
        b.status == report::BenchStatus::Sanitizer)
      return true;
  return run.program && (run.program->status == report::BenchStatus::Error ||
                         run.program->status == report::BenchStatus::Incorrect);
}

bool anyPairedSlower(const report::BenchReport &run) {
  for (const report::Benchmark &b : run.benchmarks)
    for (const report::PairedComparison &p : b.paired)
      if (p.verdict == "SLOWER")
        return true;
  return false;
}

bool anythingTimed(const report::BenchReport &run) {
  // --sanitize and --profile time nothing by design: a benchmark checked or
  // run under its label is what counts.
  if (run.settings.sanitize || run.settings.profile)
    return std::any_of(run.benchmarks.begin(), run.benchmarks.end(),
                       [](const report::Benchmark &b) {
                         return b.status == report::BenchStatus::Ok ||
                                b.status == report::BenchStatus::Sanitizer;
                       });
  for (const report::Benchmark &b : run.benchmarks)
    if (b.status == report::BenchStatus::Ok)
      for (const report::Variant &v : b.variants)
        if (!v.timings.empty())
          return true;
  return run.program && run.program->status == report::BenchStatus::Ok &&
         (run.program->withSubstitutions || run.program->generatedOnly);
}

StatusOr<BenchOutcome> runBench(const BenchRequest &request,
                                BenchObserver &observer) {
  auto wallStart = Clock::now();
  BenchRequest f = request;
  KB_RETURN_IF_ERROR(applySanitize(f));
  KB_ASSIGN_OR_RETURN(
      BenchInput input,
      openBenchInput(f.build, f.select, f.shard,
                     [](const char *name) { return std::getenv(name); }));
  if (f.watchdogS <= 0)
    f.watchdogS =
        4 * f.settings.timeoutS.value_or(bench::StoppingSettings().timeoutS) +
        60;
  if (!f.settings.sanitize && !f.settings.profile)
    f.settings.peakCache = peakCacheFile();

  BenchOutcome outcome;
  report::BenchReport &run = outcome.report;
  run.tool.version = KB_VERSION_STRING;
  run.createdUtc = nowUtc();
  run.build.path = f.build;
  if (auto sha = sha256File(fs::path(input.buildDir) / "build.json"); sha.ok())
    run.build.buildJsonSha256 = *sha;
  run.shard = input.shard;
  run.settings = toReportSettings(
      f.settings,
      f.budgetS > 0 ? std::optional<double>(f.budgetS) : std::nullopt, false);
  RunState state;
  state.buildJson = (fs::path(input.buildDir) / "build.json").string();
  KB_ASSIGN_OR_RETURN(BaselinePlan baseline,
                      planBaseline(f, input.planned, run));

  observer.planned(input.planned.size(), input.shardLine());
  InterruptForwarder interrupt;
  probePeakFirst(input.planned, f, interrupt, run);
  outcome.interruptedBy = runPlanned(input.planned, baseline, f, observer, run,
                                     state, interrupt, wallStart);
  run.interrupted = outcome.interruptedBy != 0;
  observer.allFinished();
  attachResources(run, input.buildDir);
  pairWithBaseline(run, f);
  if (!state.haveDevice && !state.unavailable.empty() && !run.interrupted)
    return unavailable("no usable device: " + state.unavailable);
  report::computeDerived(run);
  input.nameModulesByBundle(run);
  return outcome;
}

} // namespace kb::workbench
