//===- workbench/support/progress.h - Ninja-style build progress ----------===//
//
// One status line for a parallel build, as ninja prints it:
//
//  * On a smart terminal (stdout is a TTY and TERM is set and not "dumb")
//    a single line `[3/24] nvcc sm_90 kernels/matmul/tiled.cu` is rewritten
//    in place (`\r` + line + `\x1b[K`), elided in the middle to the terminal
//    width.
//  * Otherwise (CI logs, pipes) every status is its own plain line.
//  * Output of a job (a failure, or warnings) is printed as one block after
//    the job ends, never interleaved with other jobs.
//  * Colour only on a TTY, and never when NO_COLOR is set (no-color.org).
//
// Thread-safe: worker threads report steps; the printer serializes them.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_PROGRESS_H_
#define KB_WORKBENCH_SUPPORT_PROGRESS_H_

#include <cstdio>
#include <mutex>
#include <string>

namespace kb::workbench {

struct ProgressOptions {
  /// Rewrite one line in place (smart terminal) or print plain lines.
  bool smartTerminal = false;
  /// ANSI colour in blocks (FAILED in red, ...).
  bool color = false;
  /// Width to elide the status line to (smart terminal only).
  size_t width = 80;
};

/// What the current process's stdout supports (isatty, TERM, NO_COLOR,
/// TIOCGWINSZ).
ProgressOptions detectTerminal();

/// Shortens |text| to |width| columns by replacing its middle with "...".
std::string elideMiddle(const std::string &text, size_t width);

class Progress {
public:
  Progress(std::FILE *out, ProgressOptions options, size_t totalJobs);
  ~Progress();

  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// A job started.
  void jobStarted();
  /// A step of some job started ("nvcc sm_90 kernels/saxpy/saxpy.cu").
  /// Shown as `[S/T] description`, S = jobs started so far: with parallel
  /// jobs the counter stays monotonic (ninja's `%s`), whichever job the step
  /// belongs to.
  void step(const std::string &description);
  /// A job ended; |block| (possibly empty) is printed as one unit.
  void jobFinished(const std::string &block);
  /// Prints a line that is not a status (e.g. the summary), clearing the
  /// status line first.
  void printLine(const std::string &line);
  /// Clears the status line (smart terminal) before the summary is printed.
  void finish();

  const ProgressOptions &options() const { return options_; }

private:
  void clearStatusLocked();

  std::FILE *out_;
  ProgressOptions options_;
  size_t total_;
  size_t started_ = 0;
  size_t finished_ = 0;
  bool statusShown_ = false;
  std::mutex mutex_;
};

/// Wraps |text| in the ANSI SGR |code| ("1;31" = bold red) when |color|.
std::string colorize(const std::string &text, const char *code, bool color);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_PROGRESS_H_
