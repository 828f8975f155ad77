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
  total_ = count;
  start_ = std::chrono::steady_clock::now();
}

std::string PrintingBenchObserver::timeLeft(size_t finished, size_t total,
                                            double elapsedS) {
  if (finished == 0 || finished >= total)
    return "";
  double left = elapsedS / double(finished) * double(total - finished);
  char buf[48];
  if (left < 90)
    std::snprintf(buf, sizeof buf, "; about %.0f s left", left);
  else
    std::snprintf(buf, sizeof buf, "; about %.0f min left", left / 60);
  return buf;
}

std::string
PrintingBenchObserver::withTimeLeft(const std::string &status) const {
  // Only the live line: plain lines (CI logs) stay as they were.
  if (!terminal_.smartTerminal)
    return status;
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  return status + timeLeft(finished_, total_, elapsed);
}

void PrintingBenchObserver::started(const std::string &benchmark) {
  progress_->jobStarted();
  progress_->step(withTimeLeft(benchmark));
}

void PrintingBenchObserver::sampling(const std::string &benchmark,
                                     const std::string &text) {
  progress_->step(withTimeLeft(benchmark + ": " + text));
}

void PrintingBenchObserver::finished(const std::string &benchmark,
                                     const report::Benchmark *failed) {
  ++finished_;
  if (!failed) {
    progress_->jobFinished("");
    return;
  }
  // A worker's reason may name the status already ("skipped: the device is
  // too small: ..."): said once.
  std::string status = report::toString(failed->status);
  std::string reason = failed->reason;
  if (reason.rfind(status + ": ", 0) == 0)
    reason.erase(0, status.size() + 2);
  progress_->jobFinished(terminalLine(benchmark) + ": " + status + ": " +
                         terminalText(reason) + "\n");
}

void PrintingBenchObserver::allFinished() {
  if (progress_)
    progress_->finish();
}

} // namespace kb::workbench
