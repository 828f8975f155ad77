//===- workbench/build/build_printer.h - A build's progress as text -------===//
//
// The BuildObserver that prints: ninja-style progress (one rewritten status
// line on a smart terminal, plain `[S/T] step` lines otherwise), each
// finished job's block (build_summary.h), notes and warnings. `build` points
// it at the terminal; `tune` at its log.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_PRINTER_H_
#define KB_WORKBENCH_BUILD_BUILD_PRINTER_H_

#include "workbench/build/build_request.h"
#include "workbench/support/progress.h"

#include <cstdio>
#include <optional>
#include <string>

namespace kb::workbench {

class PrintingBuildObserver : public BuildObserver {
public:
  /// Progress and job blocks to |out|, notes and warnings to |err|;
  /// |verbose|: every command line and diagnostic in the blocks.
  PrintingBuildObserver(std::FILE *out, std::FILE *err,
                        ProgressOptions terminal, bool verbose);

  void jobsPlanned(size_t count) override;
  void jobStarted() override;
  void jobStep(const std::string &step) override;
  void jobFinished(const JobRecord &job, bool stopped) override;
  void jobsFinished() override;
  void warning(const std::string &message) override;
  void note(const std::string &message) override;

  /// Prints |line| (the summary) after clearing the status line.
  void printLine(const std::string &line);
  const ProgressOptions &terminal() const { return terminal_; }

private:
  std::FILE *out_;
  std::FILE *err_;
  ProgressOptions terminal_;
  bool verbose_;
  std::optional<Progress> progress_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_PRINTER_H_
