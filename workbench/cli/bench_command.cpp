//===- workbench/cli/bench_command.cpp - `kernel-bench bench` -------------===//
//
//   kernel-bench bench [BUILD] [-o DIR] [--device D] [--filter REGEX]
//                      [--cold|--hot|--both] [--min-time S] [--max-noise X]
//                      [--timeout S] [--quick] [--watchdog S] [--budget S]
//
// Flags -> BenchRequest -> the bench engine (bench/bench_engine.h), its
// progress on the terminal, then the table (report/bench_table.h) and every
// report format (report/report_writer.h). Also the flags of its hidden
// worker (bench/bench_worker.h).
//
// Exit codes: 0 every benchmark ok; 1 an INCORRECT or ERROR row, or a
// SLOWER paired verdict, or an output directory that cannot be written
// (checked before anything runs); 2 usage; 4 an unreadable --shard-balance
// report or a BUILD/build.json that is not a regular file;
// 5 nothing was timed (every benchmark SKIPPED, or none matched);
// 77 no usable device; 128 + N interrupted by signal N (the report keeps the
// finished benchmarks, marked interrupted).
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bench_engine.h"
#include "workbench/bench/sweep_selection.h"
#include "workbench/bench/bench_input.h"
#include "workbench/bench/bench_printer.h"
#include "workbench/bench/bench_worker.h"
#include "workbench/cli/command.h"
#include "workbench/report/bench_table.h"
#include "workbench/report/report_writer.h"
#include "workbench/support/progress.h"
#include "workbench/support/worker.h"

#include "workbench/support/interrupt_forwarder.h"

#include "common/file_util.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

namespace fs = std::filesystem;

struct BenchFlags {
  BenchRequest request;
  std::string outDir; // default: the engine's (BUILD/results)
  bool quiet = false; // nothing on stdout: the reports and the exit code
  std::string sweep;  // --sweep NAME=LO:HI, parsed into request.select
};

/// "12 benchmarks: 10 ok, 1 INCORRECT, 1 ERROR in 8.3 s; OUT/bench.json".
std::string summaryLine(const report::BenchReport &run, double seconds,
                        const std::string &path) {
  size_t counts[5] = {0, 0, 0, 0, 0}; // by report::BenchStatus
  for (const report::Benchmark &b : run.benchmarks)
    ++counts[static_cast<int>(b.status)];
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%zu benchmark(s)%s: %zu ok, %zu INCORRECT, %zu ERROR, %zu "
                "SKIPPED%s in %.1f s%s; %s",
                run.benchmarks.size(), run.program ? " + the program" : "",
                counts[0], counts[1], counts[2], counts[3],
                run.settings.sanitize
                    ? (", " + std::to_string(counts[4]) + " SANITIZER").c_str()
                    : "",
                seconds, run.interrupted ? " (INTERRUPTED)" : "", path.c_str());
  std::string line = buf;
  if (run.settings.sanitize)
    line += "\nsanitize: every benchmark checked under the Vulkan "
            "validation layer (GPU-assisted and synchronization "
            "validation) with a guard band after every buffer, none timed";
  if (run.settings.profile)
    line += "\nprofile: each benchmark's variants run once after a warm-up, "
            "each inside the label BENCHMARK/VARIANT, none timed";
  if (run.settings.counters)
    line += "\ncounters: each variant's hardware counters read after its "
            "benchmark was timed, over runs of their own";
  if (run.settings.quick && !run.settings.sanitize && !run.settings.profile)
    line += "\nquick settings (" + run.settings.quickReason +
            "): the noise is reported, not required";
  return line;
}

/// Where a run's report goes without -o: BUILD/results, or for a filtered
/// run BUILD/results-<filter> (the filter and the --sweep range reduced to
/// a file name), so that a partial run never replaces the full report.
fs::path filteredOutputDir(const fs::path &dir, const std::string &regex,
                           const std::string &sweep) {
  std::string filter =
      regex + (sweep.empty() ? "" : (regex.empty() ? "" : "_") + sweep);
  if (filter.empty())
    return dir;
  std::string slug;
  for (char c : filter.substr(0, 64))
    slug += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                    c == '_' || c == '.'
                ? c
                : '_';
  return dir.string() + "-" + slug;
}

/// Why no run happened, as an exit code: 2 for a bad flag value, 4 for an
/// unreadable --shard-balance report (bench_input.h), 77 no usable device.
int runFailed(const Status &status) {
  std::fprintf(stderr, "kernel-bench bench: error: %s\n",
               status.message().c_str());
  switch (status.code()) {
  case StatusCode::InvalidArgument:
    return kExitUsage;
  case StatusCode::DataLoss:
    return kExitBadInput;
  case StatusCode::Unavailable:
    return kExitUnavailable;
  default:
    return kExitUserError;
  }
}

int runBenchCommand(BenchFlags &flags) {
  auto wallStart = std::chrono::steady_clock::now();
  if (!flags.sweep.empty()) {
    StatusOr<SweepRange> range = parseSweepRange(flags.sweep);
    if (!range.ok())
      return runFailed(range.status());
    flags.request.select.sweep = *range;
  }
  fs::path outDir =
      flags.outDir.empty()
          ? filteredOutputDir(defaultBenchOutputDir(flags.request.build),
                              flags.request.select.filter, flags.sweep)
          : fs::path(flags.outDir);
  // Before the first benchmark: a run that measures for an hour and then
  // cannot write its report has wasted the hour.
  if (Status writable = checkWritableDirectory(outDir); !writable.ok()) {
    std::fprintf(stderr, "kernel-bench bench: error: %s\n",
                 writable.message().c_str());
    return kExitUserError;
  }
  PrintingBenchObserver printer(stdout, detectTerminal());
  BenchObserver silent;
  StatusOr<BenchOutcome> outcome =
      runBench(flags.request, flags.quiet ? silent : printer);
  if (!outcome.ok())
    return runFailed(outcome.status());
  const report::BenchReport &run = outcome->report;

  if (!flags.quiet)
    std::fputs(report::renderBenchTable(run).c_str(), stdout);
  std::error_code ec;
  fs::create_directories(outDir, ec);
  fs::path jsonPath = outDir / "bench.json";
  // bench.json and every other format, through the one report writer.
  Status written =
      report::writeReports(run, outDir, report::allReportFormats()).status();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - wallStart)
                       .count();
  if (!flags.quiet)
    std::printf("%s\n", summaryLine(run, seconds, jsonPath.string()).c_str());
  std::fflush(stdout);
  if (!written.ok()) {
    std::fprintf(stderr, "kernel-bench bench: error: %s\n",
                 written.message().c_str());
    return kExitUserError;
  }
  if (int signal = outcome->interruptedBy) {
    std::fprintf(stderr,
                 "kernel-bench bench: interrupted by %s; %s keeps the %zu "
                 "finished benchmark(s), marked interrupted\n",
                 signalName(signal).c_str(), jsonPath.string().c_str(),
                 run.benchmarks.size());
    return kExitInterruptedBase + signal;
  }
  if (anyBenchmarkFailed(run) || anyPairedSlower(run))
    return kExitUserError;
  // A shard whose share is empty ran nothing by design; any other run that
  // timed nothing must not pass a gate.
  bool emptyShard = run.shard && run.benchmarks.empty() && !run.program;
  if (!anythingTimed(run) && !emptyShard) {
    std::fprintf(stderr,
                 "kernel-bench bench: nothing measured: %s; exit %d so that "
                 "a gate on this run fails\n",
                 !run.benchmarks.empty() || run.program
                     ? "every benchmark was SKIPPED (the table says why)"
                 : run.settings.sanitize
                     ? "no dispatch benchmark matched (--sanitize checks "
                       "single dispatches; `run --sanitize` checks the whole "
                       "program)"
                     : "no benchmark matched (see --filter, --sweep)",
                 kExitNothingMeasured);
    return kExitNothingMeasured;
  }
  return kExitOk;
}

} // namespace

CommandRegistration addBenchCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "bench", "Check and time every benchmark of a build: the handwritten "
               "kernels against the generated ones, and the whole program");
  auto flags = std::make_shared<BenchFlags>();
  app->add_option("BUILD", flags->request.build,
                  "Build directory written by `kernel-bench build`, or a "
                  "bundle written by `kernel-bench bundle` (default: kb-out)")
      ->type_name("PATH");
  app->add_option("-o,--output", flags->outDir,
                  "Where bench.json goes (default: BUILD/results; for a "
                  "bundle NAME.tar, NAME-results beside it; with --filter F, "
                  "that directory's name + -F)")
      ->type_name("DIR");
  app->add_option("--shard", flags->request.shard.shard,
                  "Run shard I of N (0-based, e.g. 0/4); default: from "
                  "JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_* "
                  "(Slurm) or KB_SHARD_INDEX/KB_SHARD_COUNT");
  app->add_option_function<uint32_t>(
      "--shard-count",
      [flags](const uint32_t &n) { flags->request.shard.count = n; },
      "The number of shards when the index comes from "
      "JOB_COMPLETION_INDEX or KB_SHARD_INDEX (else "
      "KB_SHARD_COUNT)");
  app->add_option("--shard-balance", flags->request.shard.balanceReport,
                  "A previous bench.json, the same for every shard: balance "
                  "the shards by each benchmark's time in it (default: by "
                  "count)")
      ->type_name("FILE");
  app->add_option("--filter", flags->request.select.filter,
                  "Only benchmarks whose name matches this regex");
  app->add_option("--sweep", flags->sweep,
                  "Only the points of a [bench] sweep whose NAME is in "
                  "LO..HI, e.g. n=4096:1048576 (with the default output, "
                  "the directory's name + -NAME_LO_HI)")
      ->type_name("NAME=LO:HI");
  addMeasurementFlags(*app, flags->request.settings);
  app->add_option("--watchdog", flags->request.watchdogS,
                  "Seconds before a benchmark's worker is killed and the "
                  "benchmark is an ERROR (default: 4 x --timeout + 60)")
      ->check(positiveFinite());
  app->add_option("--baseline", flags->request.baseline,
                  "Another build of the same project (a directory or a "
                  "bundle): each benchmark also "
                  "times that build's same-named kernel, alternating sample "
                  "by sample in one worker, and gets a paired verdict "
                  "(FASTER/SLOWER/SAME/INCONCLUSIVE; exit 1 when SLOWER)")
      ->type_name("PATH");
  app->add_option("--threshold", flags->request.threshold,
                  "With --baseline: smallest change that counts, e.g. 2% or "
                  "0.02 (default 2%)");
  app->add_option("--budget", flags->request.budgetS,
                  "Seconds for the whole run; benchmarks not started by then "
                  "are SKIPPED, the one sampling then stops (default: no "
                  "limit)")
      ->check(positiveFinite());
  app->add_flag("-q,--quiet", flags->quiet,
                "Print nothing but errors (on stderr): no progress, table or "
                "summary; the reports and the exit code say the rest");
  return {app, [flags]() { return runBenchCommand(*flags); }};
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
  app->add_option("--budget-left", job->budgetLeftS);
  addMeasurementFlags(*app, job->settings);
  return {app, [job]() {
            becomeWorker();
            return runBenchJob(*job);
          }};
}

} // namespace kb::workbench
