//===- workbench/bench/bench_progress.h - Sampling progress, throttled ----===//
//
// The worker tells the parent how sampling goes ("progress <variant> <mode>
// <samples> <noise>", a protocol line of worker.h) for the live status line.
// The engine calls back after every sample, between two timed submissions,
// so the callback must cost next to nothing there: it only reads the clock,
// and formats and writes a line (a pipe write) at most once per interval —
// and only when the parent shows a live line at all (`--progress`).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_PROGRESS_H_
#define KB_WORKBENCH_BENCH_BENCH_PROGRESS_H_

#include "runtime/bench/measure.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace kb::workbench {

/// A bench::ProgressFn that sends at most one line per |interval|.
class SampleProgress {
public:
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(const std::string &line)>;

  SampleProgress(std::vector<std::string> subjectNames, bench::TimingMode mode,
                 Clock::duration interval, Sink sink);

  /// The engine's callback: formats only when a line is due.
  void operator()(size_t subject, const bench::StoppingRule &rule);

  /// Lines sent so far.
  size_t sent() const { return sent_; }

  /// "progress candidate cold 12 0.0123" (noise -1 while not finite).
  static std::string format(const std::string &subject, bench::TimingMode mode,
                            size_t samples, double noise);

private:
  std::vector<std::string> names_;
  bench::TimingMode mode_;
  Clock::duration interval_;
  Sink sink_;
  Clock::time_point next_{};
  size_t sent_ = 0;
};

/// How often the worker reports sampling progress (a terminal line does not
/// need more).
inline constexpr std::chrono::milliseconds kSampleProgressInterval{200};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_PROGRESS_H_
