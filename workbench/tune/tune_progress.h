//===- workbench/tune/tune_progress.h - What a running tune is doing ------===//
//
// A tune compiles and measures for minutes; without a status it looked
// hung. The measurer tells a TuneProgressSink what its builds and benches
// are doing; TuneProgressPrinter shows it on stderr (stdout keeps the table
// scripts read): one line rewritten in place on a terminal, with the phase,
// what was measured, the best so far and an estimate of the time left;
// elsewhere (CI logs) a plain line per measured configuration.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_PROGRESS_H_
#define KB_WORKBENCH_TUNE_TUNE_PROGRESS_H_

#include "workbench/bench/bench_engine.h"
#include "workbench/build/build_request.h"
#include "workbench/support/progress.h"
#include "workbench/tune/tune_search.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace kb::workbench {

/// What the measurer reports. compiling() comes from build threads.
class TuneProgressSink {
public:
  virtual ~TuneProgressSink() = default;
  /// The current build has finished |done| of its |total| compile jobs.
  virtual void compiling(size_t done, size_t total) = 0;
  /// The current bench has finished |done| of its |total| benchmarks.
  virtual void measuring(size_t done, size_t total) = 0;
  /// A configuration was measured (the tune cache's are not reported).
  virtual void measured(const std::string &configuration,
                        const TuneMeasurement &measurement) = 0;
};

/// A build observer that passes everything to |inner| and counts finished
/// jobs for |sink| (may be null).
class CountingBuildObserver : public BuildObserver {
public:
  CountingBuildObserver(BuildObserver &inner, TuneProgressSink *sink)
      : inner_(inner), sink_(sink) {}
  void jobsPlanned(size_t count) override;
  void jobStarted() override { inner_.jobStarted(); }
  void jobStep(const std::string &step) override { inner_.jobStep(step); }
  void jobFinished(const JobRecord &job, bool stopped) override;
  void jobsFinished() override { inner_.jobsFinished(); }
  void warning(const std::string &message) override { inner_.warning(message); }
  void note(const std::string &message) override { inner_.note(message); }

private:
  BuildObserver &inner_;
  TuneProgressSink *sink_;
  std::atomic<size_t> planned_{0}, finished_{0};
};

/// The same for a bench: finished benchmarks.
class CountingBenchObserver : public BenchObserver {
public:
  CountingBenchObserver(BenchObserver &inner, TuneProgressSink *sink)
      : inner_(inner), sink_(sink) {}
  bool wantsSampleProgress() const override {
    return inner_.wantsSampleProgress();
  }
  void planned(size_t count, const std::string &shardLine) override;
  void started(const std::string &benchmark) override {
    inner_.started(benchmark);
  }
  void sampling(const std::string &benchmark,
                const std::string &text) override {
    inner_.sampling(benchmark, text);
  }
  void finished(const std::string &benchmark,
                const report::Benchmark *failed) override;
  void allFinished() override { inner_.allFinished(); }

private:
  BenchObserver &inner_;
  TuneProgressSink *sink_;
  size_t planned_ = 0, finished_ = 0;
};

class TuneProgressPrinter : public TuneProgressSink {
public:
  /// |planned|: how many configurations the search will measure at most
  /// (0 when it cannot say, e.g. halving or a time budget): the estimate
  /// of the time left needs it.
  TuneProgressPrinter(std::FILE *out, ProgressOptions terminal, size_t planned);
  ~TuneProgressPrinter() override { finish(); }

  void compiling(size_t done, size_t total) override;
  void measuring(size_t done, size_t total) override;
  void measured(const std::string &configuration,
                const TuneMeasurement &measurement) override;

  /// Clears the status line (before the table is printed).
  void finish();

  /// The status as shown, for |phase| ("compiling 3/8 jobs").
  std::string statusLine(const std::string &phase) const;

private:
  void show(const std::string &phase, bool plainLine);

  std::FILE *out_;
  ProgressOptions terminal_;
  size_t planned_;
  std::mutex mutex_;
  size_t measured_ = 0, failed_ = 0;
  std::string best_;
  double bestNs_ = 0;
  bool lineShown_ = false;
  std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_PROGRESS_H_
