//===- workbench/support/kernel_output.h - What kernels print -------------===//
//
// A CUDA kernel's printf reaches the host's stdout: the driver copies the
// kernel's printf buffer to file descriptor 1 when the host synchronizes. A
// bench worker's stdout carries its report, so a kernel that prints would
// corrupt it. While a worker runs kernels, descriptor 1 points at a private
// temporary file instead (the report goes to the original stdout at the end),
// and what the kernels wrote is read back after each run of a variant, to be
// shown with that run, bounded.
//
// Process state: there is one descriptor 1, so this is a process-wide
// switch, used by the worker only (one benchmark per process).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_KERNEL_OUTPUT_H_
#define KB_WORKBENCH_SUPPORT_KERNEL_OUTPUT_H_

#include "common/status.h"

#include <string>
#include <vector>

namespace kb::workbench {

class KernelOutput {
public:
  /// Points descriptor 1 at a private temporary file (unlinked at once).
  static Status start();
  /// Files what was written since the last call under |when| ("candidate,
  /// inputs seed +0"); nothing when not capturing or nothing was written.
  static void collect(const std::string &when);
  /// What was printed, filed per run (what is left goes under |lastWhen|),
  /// and descriptor 1 back at the original stdout.
  struct Printed {
    std::string when;
    std::string text; // at most 64 KiB a run; the rest counted
  };
  static std::vector<Printed> finish(const std::string &lastWhen);
};

/// |text|'s lines as report lines: the first |maxLines| (each cut at 200
/// characters, control characters shown as terminalLine shows them) and
/// "... and N more line(s)".
std::vector<std::string> printedLines(const std::string &text, size_t maxLines);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_KERNEL_OUTPUT_H_
