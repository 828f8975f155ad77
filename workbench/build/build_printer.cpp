//===- workbench/build/build_printer.cpp - A build's progress as text -----===//
#include "workbench/build/build_printer.h"

#include "workbench/build/build_summary.h"

#include "common/terminal_text.h"

namespace kb::workbench {

PrintingBuildObserver::PrintingBuildObserver(std::FILE *out, std::FILE *err,
                                             ProgressOptions terminal,
                                             bool verbose)
    : out_(out), err_(err), terminal_(terminal), verbose_(verbose) {}

void PrintingBuildObserver::jobsPlanned(size_t count) {
  progress_.emplace(out_, terminal_, count);
}

void PrintingBuildObserver::jobStarted() { progress_->jobStarted(); }

void PrintingBuildObserver::jobStep(const std::string &step) {
  progress_->step(step);
}

void PrintingBuildObserver::jobFinished(const JobRecord &job, bool stopped) {
  // A job whose tool the interrupt stopped has no block: it would be noise.
  progress_->jobFinished(stopped ? ""
                                 : jobBlock(job, verbose_, terminal_.color));
}

void PrintingBuildObserver::jobsFinished() { progress_->finish(); }

void PrintingBuildObserver::warning(const std::string &message) {
  std::fprintf(err_, "kernel-bench: warning: %s\n",
               terminalText(message).c_str());
  std::fflush(err_);
}

void PrintingBuildObserver::note(const std::string &message) {
  std::fprintf(err_, "kernel-bench: %s\n", terminalText(message).c_str());
  std::fflush(err_);
}

void PrintingBuildObserver::printLine(const std::string &line) {
  if (progress_) {
    progress_->printLine(line);
    return;
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

} // namespace kb::workbench
