//===- workbench/bench/bench_worker.h - One benchmark module, in the ------===//
//
// What a `kernel-bench __worker bench` process does for one benchmark of a
// module: pick the device, record its state (NVML), run the benchmark
// protocol (runtime/bench/benchmark.h: check, time interleaved, re-check)
// with what the build declares for the kernel, and print the
// result on stdout as a bench report holding that one benchmark (or the
// program result), through the one bench.json writer
// (workbench/report/bench_json.h) — so the device it measured on travels
// with it. Runs only inside a worker (worker.h).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_WORKER_H_
#define KB_WORKBENCH_BENCH_BENCH_WORKER_H_

#include "workbench/bench/bench_settings.h"

#include <optional>
#include <string>

namespace kb::workbench {

struct BenchJob {
  std::string modulePath;
  /// The benchmark's name; empty = the module's entry function, timed end to
  /// end (the whole-program benchmark).
  std::string benchmark;
  BenchSettings settings;
  /// The parent shows a live status line: send sampling progress
  /// (bench_progress.h); otherwise none is formatted or sent.
  bool liveProgress = false;
  /// --baseline: the same benchmark in the other build's module (empty:
  /// none); |baselineBenchmark| names it there as |benchmark| does here.
  std::string baselineModule;
  std::string baselineBenchmark;
  /// Only open the device this benchmark would run on and measure (or read
  /// from the cache) its copy bandwidth; print no report. The parent runs
  /// this once before the first benchmark, so that no benchmark's watchdog
  /// pays for the probe.
  bool peakOnly = false;
  /// The build's build.json: what the candidate's kernel declares
  /// (declared_figures.h) by its object's sha256. Empty: nothing declared.
  std::string buildJson;
  /// Seconds of the run's --budget left when the parent started this
  /// worker: sampling stops there (reason budget). None: no budget.
  std::optional<double> budgetLeftS;
};

/// The protocol line (worker.h) naming the device the worker opened,
/// "device vulkan:0": the parent pins the rest of an `auto` run to it.
inline constexpr const char *kDeviceMessage = "device ";

/// Runs |job| and prints its report; returns the worker's exit code: 0
/// whenever a report was printed (even for an incorrect kernel), 77 when
/// the device is unavailable (with a report saying so).
int runBenchJob(const BenchJob &job);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_WORKER_H_
