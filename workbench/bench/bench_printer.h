//===- workbench/bench/bench_printer.h - A bench run's progress as text ---===//
//
// The BenchObserver that prints: the shard line, then one status line per
// benchmark (rewritten with the sampling progress on a smart terminal;
// plain `[S/T] name` lines otherwise) and a line for each benchmark that was
// not ok. `bench` points it at the terminal; `tune` at its log.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_PRINTER_H_
#define KB_WORKBENCH_BENCH_BENCH_PRINTER_H_

#include "workbench/bench/bench_engine.h"
#include "workbench/support/progress.h"

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

private:
  std::FILE *out_;
  ProgressOptions terminal_;
  std::optional<Progress> progress_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_PRINTER_H_
