//===- runtime/bench/measure.h - The sampling loop (one protocol) ---------===//
//
// One protocol for CUDA and Vulkan, built from HAL command buffers and
// timers only:
//
//  * cold: one command buffer per subject (a CUDA graph on CUDA), recorded
//    once and submitted per sample: fill of the flush buffer (2 x L2,
//    allocated once), barrier, timestamp, the subject's work, timestamp.
//    Flush, timestamps and every dispatch of the work reach the device in
//    one submission (one graph launch), so no host launch latency lands
//    between the timestamps, even for work of several dispatches.
//  * hot: timestamp, N x (work, barrier), timestamp in one command buffer
//    (a CUDA graph on CUDA); N is sized from a probe that times a batch of
//    dispatches (not one, whose launch gap would inflate the estimate) so
//    that one sample lasts at least |hotMinSampleNs|; the sample is the
//    time per dispatch.
//  * every command buffer (probes included) is submitted untimed at least
//    once before it is timed: a CUDA graph's first launch instantiates and
//    uploads it.
//
// On CUDA each sample is also bracketed by the SM clock stamp
// (clock_stamp.h, one block per SM, read on SM 0): samples below 75 % of the
// default clock are discarded and counted, with nvbench's recovery wait. Host
// wall time around each submission is recorded too. Subjects are interleaved
// (one sample of each unfinished subject per round), so drift and thermal state
// hit every subject alike; this is the loop a paired A/B comparison reuses
// (measureInterleaved with the baseline's and the candidate's workloads as
// subjects, MeasureSettings::lockstep so that their samples pair up round by
// round).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_MEASURE_H_
#define KB_RUNTIME_BENCH_MEASURE_H_

#include "common/status.h"
#include "runtime/bench/cache_flush.h"
#include "runtime/bench/results.h"
#include "runtime/bench/statistics.h"
#include "runtime/bench/stopping_rule.h"
#include "runtime/hal/api.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::bench {

struct Subject {
  std::string name;
  std::function<Status(hal::CommandBuffer &)> record;
};

struct MeasureSettings {
  StoppingSettings stopping;
  L2Size l2;
  double hotMinSampleNs = 1e6;
  uint32_t maxHotDispatches = 10000;
  uint32_t warmupRuns = 1;
  /// Paired A/B: every subject takes one sample in every round until ALL
  /// have stopped, and a round in which any sample is throttled is
  /// discarded for all of them, so sample i of every subject comes from the
  /// same round (adjacent submissions) and the sample counts are equal.
  bool lockstep = false;
  /// When the run's global budget (--budget) runs out: sampling stops there
  /// (reason Budget), in whatever mode it is. None: no budget.
  std::optional<std::chrono::steady_clock::time_point> budgetDeadline;
};

/// Progress after each sample: subject index, its rule (count, noise).
using ProgressFn = std::function<void(size_t, const StoppingRule &)>;
/// Polled between samples; true stops every subject (reason Interrupted).
using InterruptFn = std::function<bool()>;

/// Owns the flush buffer; create once per device and reuse.
class Engine {
public:
  static StatusOr<std::unique_ptr<Engine>> create(hal::Device &device,
                                                  const MeasureSettings &);

  /// Times every subject in |mode|, interleaved; one result per subject.
  StatusOr<std::vector<Timing>>
  measureInterleaved(const std::vector<Subject> &subjects, TimingMode mode,
                     const ProgressFn &progress = {},
                     const InterruptFn &interrupted = {});

  const MeasureSettings &settings() const { return settings_; }
  hal::Device &device() { return device_; }
  /// Why samples carry no SM clock on a device that should have one (the
  /// clock-stamp kernel did not load); empty otherwise.
  const std::string &clockError() const { return clockError_; }
  /// The buffer a cold sample's flush fills (cache_flush.h); null when the
  /// device left no room for one.
  hal::Buffer *flushBuffer() const { return flush_.get(); }

private:
  Engine(hal::Device &device, const MeasureSettings &settings)
      : device_(device), settings_(settings) {}
  struct Prepared;
  StatusOr<Prepared> prepareCold(const Subject &subject);
  StatusOr<Prepared> prepareHot(const Subject &subject);
  Status createTimerAndStamps(Prepared &p);
  /// Records stamp 0, timestamp 0, |work|, timestamp 1, stamp 1.
  Status recordTimed(Prepared &p, const std::function<Status()> &work);
  /// Submits |commands| untimed (warmupRuns times, at least once).
  Status warmUp(hal::CommandBuffer &commands);
  /// Device ns of |dispatches| back-to-back dispatches in one CUDA graph,
  /// after warming it up.
  StatusOr<double> timeBatch(const Subject &subject, hal::Timer &timer,
                             uint32_t dispatches);
  /// One dispatch's device time, for sizing the hot batch.
  StatusOr<double> probeDispatchNs(const Subject &subject, hal::Timer &timer);
  Status recordClearStamps(hal::CommandBuffer &commands, hal::Buffer &stamps);
  Status recordStamp(hal::CommandBuffer &commands, hal::Buffer &stamps,
                     uint32_t slot);
  /// Submits |p| once: one sample, per dispatch, with its SM clock.
  StatusOr<Sample> takeSample(Prepared &p);
  /// The SM clock of the sample |p| just ran; none without stamps.
  StatusOr<std::optional<double>> sampleClock(Prepared &p);
  /// Prepares every subject for |mode| and starts its result in |results|.
  StatusOr<std::vector<Prepared>> prepareAll(const std::vector<Subject> &,
                                             TimingMode mode,
                                             std::vector<Timing> &results);
  /// Whether the global budget ran out (settings_.budgetDeadline).
  bool budgetSpent() const;
  /// Summaries of every result (finishTiming), returned.
  std::vector<Timing> finishAll(std::vector<Timing> &results);

  hal::Device &device_;
  MeasureSettings settings_;
  std::shared_ptr<hal::Buffer> flush_;
  std::shared_ptr<hal::Executable> clockStamp_; // CUDA only
  std::string clockError_;
};

/// Fills |result|'s summaries, noise and noiseMet from its samples.
/// The summary of |timing|'s samples and whether its noise met |maxNoise|.
void finishTiming(Timing &timing, double maxNoise);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_MEASURE_H_
