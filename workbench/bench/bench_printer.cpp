//===- workbench/bench/bench_printer.cpp - A bench run's progress as text -===//
#include "workbench/bench/bench_printer.h"

#include "common/terminal_text.h"

namespace kb::workbench {

PrintingBenchObserver::PrintingBenchObserver(std::FILE *out,
                                             ProgressOptions terminal)
    : out_(out), terminal_(terminal) {}

bool PrintingBenchObserver::wantsSampleProgress() const {
  return terminal_.smartTerminal;
}

void PrintingBenchObserver::planned(size_t count,
                                    const std::string &shardLine) {
  if (!shardLine.empty()) {
    std::fprintf(out_, "%s\n", shardLine.c_str());
    std::fflush(out_);
  }
  progress_.emplace(out_, terminal_, count);
}

void PrintingBenchObserver::started(const std::string &benchmark) {
  progress_->jobStarted();
  progress_->step(benchmark);
}

void PrintingBenchObserver::sampling(const std::string &benchmark,
                                     const std::string &text) {
  progress_->step(benchmark + ": " + text);
}

void PrintingBenchObserver::finished(const std::string &benchmark,
                                     const report::Benchmark *failed) {
  progress_->jobFinished(failed ? terminalLine(benchmark) + ": " +
                                      report::toString(failed->status) + ": " +
                                      terminalText(failed->reason) + "\n"
                                : "");
}

void PrintingBenchObserver::allFinished() {
  if (progress_)
    progress_->finish();
}

} // namespace kb::workbench
