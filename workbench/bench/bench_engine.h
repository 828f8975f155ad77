//===- workbench/bench/bench_engine.h - The bench engine ------------------===//
//
// `kernel-bench bench` as a function: a BenchRequest in, the run's report
// (report/bench_results.h, what bench.json holds) out. Each benchmark runs
// in a fresh worker process (bench_worker.h) that checks the candidate
// against the reference, times both interleaved and re-checks; a worker that
// dies or hangs (the watchdog) becomes an ERROR row and the run goes on.
// The command prints what the observer is told, the table and the report
// files; `tune` measures its configurations through the same call and reads
// the report in memory.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_ENGINE_H_
#define KB_WORKBENCH_BENCH_BENCH_ENGINE_H_

#include "workbench/bench/bench_input.h"
#include "workbench/bench/bench_plan.h"
#include "workbench/bench/bench_settings.h"
#include "workbench/report/bench_results.h"

#include "common/status.h"

#include <cstddef>
#include <filesystem>
#include <string>

namespace kb::workbench {

struct BenchRequest {
  std::string build = "kb-out"; // a build directory or a bundle (bundle.h)
  BenchSelection select;
  BenchSettings settings;
  double watchdogS = 0; // 0 = 4 x timeout + 60
  double budgetS = 0;   // 0 = unlimited
  /// Another build: each benchmark also times the same-named one of that
  /// build, in lockstep, and gets a paired verdict.
  std::string baseline;
  std::string threshold = "2%"; // δ of the paired verdicts
  ShardFlags shard;
};

/// What a bench run says while it runs, in order, from one thread. Every
/// method does nothing by default.
class BenchObserver {
public:
  virtual ~BenchObserver() = default;
  /// Whether workers should send sampling progress (a live status line
  /// shows it); none is formatted or sent otherwise.
  virtual bool wantsSampleProgress() const { return false; }
  /// Before the first benchmark: how many this run has, and its shard
  /// ("" when not sharded).
  virtual void planned(size_t count, const std::string &shardLine) {
    (void)count;
    (void)shardLine;
  }
  virtual void started(const std::string &benchmark) { (void)benchmark; }
  /// Sampling progress of the running benchmark ("candidate cold: 40
  /// samples, noise 0.80%").
  virtual void sampling(const std::string &benchmark, const std::string &text) {
    (void)benchmark;
    (void)text;
  }
  /// A benchmark ended; |failed| is its row when it was not ok.
  virtual void finished(const std::string &benchmark,
                        const report::Benchmark *failed) {
    (void)benchmark;
    (void)failed;
  }
  /// Every benchmark has ended (or the run was interrupted).
  virtual void allFinished() {}
};

struct BenchOutcome {
  report::BenchReport report;
  /// The signal that interrupted the run (the report keeps the benchmarks
  /// that finished); 0 when none did.
  int interruptedBy = 0;
};

/// Runs |request|. The status says why no run happened: InvalidArgument a
/// bad flag value (a usage error), DataLoss an unreadable --shard-balance
/// report, Unavailable no usable device for any benchmark, anything else
/// no build or a bundle that cannot be used.
StatusOr<BenchOutcome> runBench(const BenchRequest &request,
                                BenchObserver &observer);

/// An INCORRECT or ERROR row, or a program that was not ok.
bool anyBenchmarkFailed(const report::BenchReport &run);
/// A paired verdict (--baseline) that says SLOWER.
bool anyPairedSlower(const report::BenchReport &run);
/// Whether any benchmark (or the program) was timed: an ok row with a
/// timing. A run without one proves nothing, whatever its rows say.
bool anythingTimed(const report::BenchReport &run);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_ENGINE_H_
