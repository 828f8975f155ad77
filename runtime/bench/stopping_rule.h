//===- runtime/bench/stopping_rule.h - When to stop sampling --------------===//
//
// nvbench's `stdrel` criterion (nvbench/detail/stdrel_criterion): the relative
// standard deviation of the accepted GPU times is the noise; sampling stops
// once at least |minSamples| samples were taken, more than |minTimeS| was
// spent taking them, and either the noise is at most |maxNoise|, or the
// noise has plateaued (over a ring of the last 512 noise values, once more
// than 64 exist and checked every 16 samples: their own relative stdev is
// below 5 %), or the noise was not finite for 64 samples in a row. The
// wall-clock |timeoutS| ends sampling whatever the noise.
//
// Unlike nvbench, |minTimeS| bounds the time spent sampling (the host wall
// time of the accepted samples' submissions), not their GPU time: a cold
// sample of a kernel of a few microseconds costs far more wall time (the L2
// flush, the submission, the wait) than GPU time, so a GPU-time minimum of
// 0.5 s would take hundreds of thousands of samples and every such kernel
// would run into the timeout. For kernels long enough to dominate their
// sample, the two agree.
//
// Where the noise target cannot be met (CPU devices such as lavapipe, and
// --quick) |noiseRequired| is false: sampling stops at |minSamples| with the
// noise reported, not required; the timeout still bounds it, and a timing
// that stops before |minSamples| says so by its reason (Timeout).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_STOPPING_RULE_H_
#define KB_RUNTIME_BENCH_STOPPING_RULE_H_

#include "runtime/bench/results.h"
#include "runtime/bench/statistics.h"

#include <cstddef>
#include <deque>

namespace kb::bench {

struct StoppingSettings {
  size_t minSamples = 10;
  double minTimeS = 0.5;   // accumulated wall time of accepted samples
  double maxNoise = 0.005; // relative stdev
  double timeoutS = 15;    // wall time per variant and timing mode
  bool noiseRequired = true;
};

/// The time limit of the quick settings, per benchmark (its modes share it).
inline constexpr double kQuickTimeoutS = 10;

/// The --quick settings, also the defaults on CPU devices: sampling stops at
/// 10 samples, or at the time limit (kQuickTimeoutS) before them; noise
/// reported but not required.
StoppingSettings quickStoppingSettings();

class StoppingRule {
public:
  explicit StoppingRule(const StoppingSettings &settings)
      : settings_(settings) {}

  /// Feeds one accepted sample: its GPU time (what the noise is of) and the
  /// host wall time it took (what counts toward |minTimeS|). Returns true
  /// when sampling should stop (reason() says why).
  bool add(double gpuNs, double wallNs);
  /// True (reason Timeout) once |wallS| exceeds the timeout.
  bool checkTimeout(double wallS);

  /// Relative stdev of the samples so far; infinity before 5 samples.
  double noise() const;
  bool noiseMet() const { return noise() <= settings_.maxNoise; }
  StopReason reason() const { return reason_; }
  size_t count() const { return variance_.count(); }

private:
  bool plateaued() const;

  StoppingSettings settings_;
  OnlineVariance variance_;
  double wallNs_ = 0; // sum of the accepted samples' wall times
  std::deque<double> noiseRing_;
  size_t nonFiniteRun_ = 0;
  StopReason reason_ = StopReason::NotStopped;
};

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_STOPPING_RULE_H_
