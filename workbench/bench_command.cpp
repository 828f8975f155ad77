//===- workbench/bench_command.cpp - `kernel-bench bench` -----------------===//
//
//   kernel-bench bench [BUILD] [-o DIR] [--device D] [--filter REGEX]
//                      [--cold|--hot|--both] [--min-time S] [--max-noise X]
//                      [--timeout S] [--quick] [--watchdog S] [--budget S]
//
// Times every benchmark `kernel-bench build` wrote into BUILD (bench_plan.h),
// each in a fresh worker process (worker.h) that checks the candidate
// against the reference, times both, re-checks, and sends its outcome back
// (bench_worker.h). The parent shows a live progress line, turns a worker
// that died or hung (the watchdog) into an ERROR row and goes on with a new
// worker, then prints the table (bench_table.h) and writes bench.json.
//
// Ctrl-C / SIGTERM: the running worker's group is signalled
// (interrupt.h), finished benchmarks are kept, the report is written marked
// interrupted, and the exit code is 128 + the signal.
//
// Exit codes: 0 every benchmark ok; 1 an INCORRECT or ERROR row; 2 usage;
// 77 no usable device; 130/143 interrupted.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench_command.h"

#include "common/sha256.h"
#include "toolchains/build_cache.h"
#include "workbench/bench_plan.h"
#include "workbench/bench_report_fill.h"
#include "workbench/bench_table.h"
#include "workbench/bench_worker.h"
#include "workbench/build_resources.h"
#include "workbench/command.h"
#include "workbench/interrupt_forwarder.h"
#include "workbench/progress.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/compare.h"
#include "workbench/report/report_writer.h"
#include "workbench/worker.h"

#include <CLI/CLI.hpp>

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
};

/// `__worker bench ...` for |p|: the settings (on the pinned device), live
/// progress only for a terminal, the --baseline build's module.
std::vector<std::string> workerCommand(const PlannedBenchmark &p,
                                       const PlannedBenchmark *baseline,
                                       const BenchCommandFlags &f,
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
                    BenchCommandFlags &f, const InterruptForwarder &interrupt,
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

/// Runs one benchmark in a fresh worker (with |baseline|, the same benchmark
/// of the --baseline build, timed in lockstep) and adds its result (or an
/// ERROR row) to |run|. Returns the worker's exit code.
int runOne(const PlannedBenchmark &p, const PlannedBenchmark *baseline,
           const BenchCommandFlags &f, Progress &progress,
           report::BenchReport &run, RunState &state) {
  if (!p.loadError.empty()) {
    addFailure(run, p, report::BenchStatus::Error, p.loadError);
    return 0;
  }
  bool live = progress.options().smartTerminal;
  WorkerOptions worker;
  worker.args = workerCommand(p, baseline, f, state, live);
  worker.timeoutS = f.watchdogS;
  std::string opened;
  worker.onMessage = [&](const std::string &message) {
    if (live && message.compare(0, 9, "progress ") == 0)
      progress.step(p.displayName + ": " + progressText(message));
    else if (message.rfind(kDeviceMessage, 0) == 0)
      opened = message.substr(std::string(kDeviceMessage).size());
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
    run.benchmarks.push_back(std::move(b));
  }
  if (result->program)
    run.program = std::move(result->program);
  return exitCode;
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
planBaseline(const BenchCommandFlags &f,
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
  auto base = planBenchmarks(plan.build.buildDir, f.filter);
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
/// (compare.h comparePaired); true when one is SLOWER.
bool pairWithBaseline(report::BenchReport &run, const BenchCommandFlags &f) {
  if (f.baseline.empty())
    return false;
  report::CompareOptions options;
  report::parseThreshold(f.threshold, options.threshold); // checked before
  bool slower = false;
  for (report::Benchmark &b : run.benchmarks) {
    const report::Variant *candidate = nullptr, *base = nullptr;
    for (const report::Variant &v : b.variants)
      if (v.name == kBaselineVariant)
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
        slower |= paired->verdict == "SLOWER";
        b.paired.push_back(*paired);
      }
  }
  return slower;
}

bool anyFailed(const report::BenchReport &run) {
  for (const report::Benchmark &b : run.benchmarks)
    if (b.status == report::BenchStatus::Incorrect ||
        b.status == report::BenchStatus::Error)
      return true;
  return run.program && (run.program->status == report::BenchStatus::Error ||
                         run.program->status == report::BenchStatus::Incorrect);
}

std::string nowUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// "12 benchmarks: 10 ok, 1 INCORRECT, 1 ERROR in 8.3 s; OUT/bench.json".
std::string summaryLine(const report::BenchReport &run, double seconds,
                        const std::string &path) {
  size_t counts[4] = {0, 0, 0, 0};
  for (const report::Benchmark &b : run.benchmarks)
    ++counts[static_cast<int>(b.status)];
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%zu benchmark(s)%s: %zu ok, %zu INCORRECT, %zu ERROR, %zu "
                "SKIPPED in %.1f s%s; %s",
                run.benchmarks.size(), run.program ? " + the program" : "",
                counts[0], counts[1], counts[2], counts[3], seconds,
                run.interrupted ? " (INTERRUPTED)" : "", path.c_str());
  std::string line = buf;
  if (run.settings.quick)
    line += "\nquick settings (" + run.settings.quickReason +
            "): the noise is reported, not required";
  return line;
}

/// Prints why the run could not be planned; exit 2 for a bad flag value, 4
/// for an unreadable --shard-balance report (bench_input.h).
int planFailed(const Status &status) {
  std::fprintf(stderr, "kernel-bench bench: error: %s\n",
               status.message().c_str());
  return status.code() == StatusCode::InvalidArgument ? kExitUsage
         : status.code() == StatusCode::DataLoss      ? kExitBadInput
                                                      : kExitUserError;
}

} // namespace

int runBench(const BenchCommandFlags &flags) {
  auto wallStart = Clock::now();
  auto input =
      openBenchInput(flags.build, flags.filter, flags.shard,
                     [](const char *name) { return std::getenv(name); });
  if (!input.ok())
    return planFailed(input.status());
  if (input->shard)
    std::printf("%s\n", input->shardLine().c_str());
  const std::vector<PlannedBenchmark> *planned = &input->planned;
  BenchCommandFlags f = flags;
  if (f.watchdogS <= 0)
    f.watchdogS =
        4 * f.settings.timeoutS.value_or(bench::StoppingSettings().timeoutS) +
        60;
  f.settings.peakCache = peakCacheFile();
  fs::path outDir =
      f.outDir.empty() ? input->defaultOutputDir(f.build) : fs::path(f.outDir);

  report::BenchReport run;
  run.tool.version = KB_VERSION_STRING;
  run.createdUtc = nowUtc();
  run.build.path = f.build;
  if (auto sha = sha256File(fs::path(input->buildDir) / "build.json"); sha.ok())
    run.build.buildJsonSha256 = *sha;
  run.shard = input->shard;
  run.settings = toReportSettings(
      f.settings,
      f.budgetS > 0 ? std::optional<double>(f.budgetS) : std::nullopt, false);
  RunState state;
  state.buildJson = (fs::path(input->buildDir) / "build.json").string();

  auto baseline = planBaseline(f, *planned, run);
  if (!baseline.ok())
    return planFailed(baseline.status());

  InterruptForwarder interrupt;
  probePeakFirst(*planned, f, interrupt, run);
  Progress progress(stdout, detectTerminal(), planned->size());
  for (const PlannedBenchmark &p : *planned) {
    if (interrupt.signal())
      break;
    double elapsed =
        std::chrono::duration<double>(Clock::now() - wallStart).count();
    if (f.budgetS > 0 && elapsed >= f.budgetS) {
      addFailure(run, p, report::BenchStatus::Skipped,
                 "the global budget (--budget) was spent before it started");
      continue;
    }
    progress.jobStarted();
    progress.step(p.displayName);
    // An interrupted benchmark is not a result: remember what its worker may
    // add to |run| (without copying earlier benchmarks' samples) to take it
    // back.
    size_t benchmarksBefore = run.benchmarks.size();
    size_t warningsBefore = run.environment.warnings.size();
    bool hadProgram = run.program.has_value();
    report::DeviceInfo deviceBefore = run.device;
    report::BenchSettings settingsBefore = run.settings;
    auto base = baseline->byName.find(p.displayName);
    runOne(p, base != baseline->byName.end() ? &base->second : nullptr, f,
           progress, run, state);
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
    if (last && last->name == p.displayName &&
        last->status != report::BenchStatus::Ok)
      progress.jobFinished(p.displayName + ": " +
                           report::toString(last->status) + ": " +
                           last->reason + "\n");
    else
      progress.jobFinished("");
  }
  run.interrupted = interrupt.signal() != 0;
  progress.finish();
  attachResources(run, input->buildDir);
  bool slower = pairWithBaseline(run, f);
  if (!state.haveDevice && !state.unavailable.empty() && !run.interrupted) {
    std::fprintf(stderr, "kernel-bench bench: error: no usable device: %s\n",
                 state.unavailable.c_str());
    return kExitUnavailable;
  }
  report::computeDerived(run);
  input->nameModulesByBundle(run);

  std::fputs(renderBenchTable(run).c_str(), stdout);
  std::error_code ec;
  fs::create_directories(outDir, ec);
  fs::path jsonPath = outDir / "bench.json";
  // bench.json and every other format, through the one report writer.
  Status written =
      report::writeReports(run, outDir, report::allReportFormats()).status();
  double seconds =
      std::chrono::duration<double>(Clock::now() - wallStart).count();
  std::printf("%s\n", summaryLine(run, seconds, jsonPath.string()).c_str());
  std::fflush(stdout);
  if (!written.ok()) {
    std::fprintf(stderr, "kernel-bench bench: error: %s\n",
                 written.message().c_str());
    return kExitUserError;
  }
  if (run.interrupted) {
    std::fprintf(stderr,
                 "kernel-bench bench: interrupted by %s; %s keeps the %zu "
                 "finished benchmark(s), marked interrupted\n",
                 signalName(interrupt.signal()).c_str(),
                 jsonPath.string().c_str(), run.benchmarks.size());
    return kExitInterruptedBase + interrupt.signal();
  }
  return anyFailed(run) || slower ? kExitUserError : kExitOk;
}

CommandRegistration addBenchCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "bench", "Check and time every benchmark of a build: the handwritten "
               "kernels against the generated ones, and the whole program");
  auto flags = std::make_shared<BenchCommandFlags>();
  app->add_option("BUILD", flags->build,
                  "Build directory written by `kernel-bench build`, or a "
                  "bundle written by `kernel-bench bundle` (default: kb-out)");
  app->add_option("-o,--output", flags->outDir,
                  "Where bench.json goes (default: BUILD/results; for a "
                  "bundle NAME.tar, NAME-results beside it)");
  app->add_option("--shard", flags->shard.shard,
                  "Run shard I of N (0-based, e.g. 0/4); default: from "
                  "JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_* "
                  "(Slurm) or KB_SHARD_INDEX/KB_SHARD_COUNT");
  app->add_option_function<uint32_t>(
      "--shard-count", [flags](const uint32_t &n) { flags->shard.count = n; },
      "The number of shards when the index comes from "
      "JOB_COMPLETION_INDEX or KB_SHARD_INDEX (else "
      "KB_SHARD_COUNT)");
  app->add_option("--shard-balance", flags->shard.balanceReport,
                  "A previous bench.json, the same for every shard: balance "
                  "the shards by each benchmark's time in it (default: by "
                  "count)");
  app->add_option("--filter", flags->filter,
                  "Only benchmarks whose name matches this regex");
  addMeasurementFlags(*app, flags->settings);
  app->add_option("--watchdog", flags->watchdogS,
                  "Seconds before a benchmark's worker is killed and the "
                  "benchmark is an ERROR (default: 4 x --timeout + 60)")
      ->check(positiveFinite());
  app->add_option("--baseline", flags->baseline,
                  "Another build of the same project (a directory or a "
                  "bundle): each benchmark also "
                  "times that build's same-named kernel, alternating sample "
                  "by sample in one worker, and gets a paired verdict "
                  "(FASTER/SLOWER/SAME/INCONCLUSIVE; exit 1 when SLOWER)");
  app->add_option("--threshold", flags->threshold,
                  "With --baseline: smallest change that counts, e.g. 2% or "
                  "0.02 (default 2%)");
  app->add_option("--budget", flags->budgetS,
                  "Seconds for the whole run; benchmarks not started by then "
                  "are SKIPPED (default: no limit)")
      ->check(positiveFinite());
  return {app, [flags]() { return runBench(*flags); }};
}

CommandRegistration addBenchWorkerCommand(CLI::App &worker) {
  CLI::App *app = worker.add_subcommand("bench", "");
  auto job = std::make_shared<BenchJob>();
  app->add_option("MODULE", job->modulePath)->required();
  app->add_option("--benchmark", job->benchmark);
  app->add_option("--peak-cache", job->settings.peakCache);
  app->add_option("--baseline-module", job->baselineModule);
  app->add_option("--baseline-benchmark", job->baselineBenchmark);
  app->add_option("--build-json", job->buildJson);
  app->add_flag("--progress", job->liveProgress);
  app->add_flag("--peak-only", job->peakOnly);
  addMeasurementFlags(*app, job->settings);
  return {app, [job]() {
            becomeWorker();
            return runBenchJob(*job);
          }};
}

} // namespace kb::workbench
