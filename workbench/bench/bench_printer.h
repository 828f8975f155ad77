//===- workbench/bench/bench_printer.h - A bench run's progress as text ---===//
//
// The BenchObserver that prints: the shard line, then one status line per
// benchmark (rewritten on a smart terminal with the phase — loading, the
// correctness check, sampling with its count and noise — and, once a
// benchmark has finished, the time left at the run's pace so far; plain
// `[S/T] name` lines otherwise) and a line for each benchmark that was not
// ok. `bench` points it at the terminal; `tune` at its log.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_PRINTER_H_
#define KB_WORKBENCH_BENCH_BENCH_PRINTER_H_

#include "workbench/bench/bench_engine.h"
#include "workbench/support/progress.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace kb::workbench {

class PrintingBenchObserver : public BenchObserver {
public:
  PrintingBenchObserver(std::FILE *out, ProgressOptions terminal);

  bool wantsSampleProgress() const override;
  void planned(size_t count, const std::string &shardLine) override;
  void started(const std::string &benchmark) override;
  void sampling(const std::string &benchmark, const std::string &text) override;
  void finished(const std::string &benchmark,
                const report::Benchmark *failed) override;
  void allFinished() override;

  /// "; about 40 s left" after |finished| of |total| benchmarks in
  /// |elapsedS|; "" before the first has finished.
  static std::string timeLeft(size_t finished, size_t total, double elapsedS);

private:
  std::string withTimeLeft(const std::string &status) const;

  std::FILE *out_;
  ProgressOptions terminal_;
  std::optional<Progress> progress_;
  size_t total_ = 0, finished_ = 0;
  std::chrono::steady_clock::time_point start_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_PRINTER_H_
