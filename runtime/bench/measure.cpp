//===- runtime/bench/measure.cpp - The sampling loop (one protocol) -------===//
#include "runtime/bench/measure.h"

#include "runtime/bench/clock_stamp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

namespace kb::bench {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Submits |commands| and returns (device ns between slots 0 and 1, host ns).
StatusOr<std::pair<double, double>> submitTimed(hal::CommandBuffer &commands,
                                                hal::Timer &timer) {
  auto start = Clock::now();
  KB_RETURN_IF_ERROR(commands.submitAndWait());
  double hostNs = secondsSince(start) * 1e9;
  KB_ASSIGN_OR_RETURN(double gpuNs, timer.elapsedNs(0, 1));
  return std::make_pair(gpuNs, hostNs);
}
} // namespace

struct Engine::Prepared {
  std::unique_ptr<hal::CommandBuffer> commands;
  std::shared_ptr<hal::Timer> timer;
  std::shared_ptr<hal::Buffer> stamps; // 2 x {ns, cycles}; CUDA only
  uint32_t dispatches = 1;
};

StatusOr<std::unique_ptr<Engine>>
Engine::create(hal::Device &device, const MeasureSettings &settings) {
  std::unique_ptr<Engine> engine(new Engine(device, settings));
  KB_ASSIGN_OR_RETURN(engine->flush_, allocateFlushBuffer(device, settings.l2));
  if (device.supportsFormat(hal::ExecutableFormat::Ptx)) {
    hal::ExecutableSpec spec;
    spec.name = "kb_clock_stamp";
    spec.format = hal::ExecutableFormat::Ptx;
    spec.target = "sm_75";
    spec.data = clockStampPtx();
    spec.exports = {clockStampAbi()};
    auto stamp = device.createExecutable(spec);
    if (stamp.ok())
      engine->clockStamp_ = std::move(*stamp);
    else
      engine->clockError_ =
          "the SM clock-stamp kernel did not load: " + stamp.status().message();
  }
  return engine;
}

Status Engine::recordClearStamps(hal::CommandBuffer &commands,
                                 hal::Buffer &stamps) {
  // A stamp the kernel did not write (no block ran on SM 0) stays zero and
  // gives no clock, instead of pairing with the previous sample's stamp.
  KB_RETURN_IF_ERROR(commands.fillBuffer(stamps, 0, 0, 0));
  return commands.barrier();
}

Status Engine::recordStamp(hal::CommandBuffer &commands, hal::Buffer &stamps,
                           uint32_t slot) {
  hal::DispatchParams params;
  params.executable = clockStamp_.get();
  // One block per SM so that one runs on SM 0, the only one that writes.
  params.workgroupCount = {clockStampBlocks(device_.properties().computeUnits),
                           1, 1};
  params.bindings = {{&stamps, 0, 0}};
  params.constants.resize(4);
  std::memcpy(params.constants.data(), &slot, 4);
  params.label = "SM clock stamp " + std::to_string(slot);
  KB_RETURN_IF_ERROR(commands.barrier());
  KB_RETURN_IF_ERROR(commands.dispatch(params));
  return commands.barrier();
}

StatusOr<std::optional<double>> Engine::sampleClock(Prepared &p) {
  if (!p.stamps)
    return std::optional<double>();
  uint64_t s[4] = {0, 0, 0, 0};
  KB_RETURN_IF_ERROR(p.stamps->download(0, s, sizeof s));
  return clockFromStamps(s[0], s[1], s[2], s[3]);
}

Status Engine::createTimerAndStamps(Prepared &p) {
  KB_ASSIGN_OR_RETURN(p.timer, device_.createTimer(2));
  if (clockStamp_) {
    KB_ASSIGN_OR_RETURN(
        p.stamps, device_.allocateBuffer(32, hal::MemoryType::DeviceLocal));
  }
  return okStatus();
}

Status Engine::recordTimed(Prepared &p, const std::function<Status()> &work) {
  if (p.stamps)
    KB_RETURN_IF_ERROR(recordStamp(*p.commands, *p.stamps, 0));
  KB_RETURN_IF_ERROR(p.commands->writeTimestamp(*p.timer, 0));
  KB_RETURN_IF_ERROR(work());
  KB_RETURN_IF_ERROR(p.commands->writeTimestamp(*p.timer, 1));
  if (p.stamps)
    KB_RETURN_IF_ERROR(recordStamp(*p.commands, *p.stamps, 1));
  return okStatus();
}

Status Engine::warmUp(hal::CommandBuffer &commands) {
  // At least once: a CUDA graph's first launch instantiates and uploads it,
  // which must not be a timed sample.
  for (uint32_t i = 0; i < std::max(settings_.warmupRuns, 1u); ++i)
    KB_RETURN_IF_ERROR(commands.submitAndWait());
  return okStatus();
}

StatusOr<Sample> Engine::takeSample(Prepared &p) {
  KB_ASSIGN_OR_RETURN(auto times, submitTimed(*p.commands, *p.timer));
  Sample sample;
  sample.gpuNs = times.first / p.dispatches;
  sample.hostNs = times.second / p.dispatches;
  KB_ASSIGN_OR_RETURN(std::optional<double> clockHz, sampleClock(p));
  if (clockHz)
    sample.smClockMHz = *clockHz / 1e6;
  return sample;
}

StatusOr<Engine::Prepared> Engine::prepareCold(const Subject &subject) {
  Prepared p;
  KB_RETURN_IF_ERROR(createTimerAndStamps(p));
  // One CUDA graph: the flush, the stamps, the timestamps and every dispatch
  // of the subject reach the device in one launch, so the host's launch gap
  // between two of the subject's dispatches cannot land between the
  // timestamps (a subject of several dispatches would otherwise be timed
  // with the gaps). Vulkan ignores the option: its command buffer is one
  // submission already.
  hal::CommandBufferOptions options;
  options.useGraph = true;
  KB_ASSIGN_OR_RETURN(p.commands, device_.createCommandBuffer(options));
  if (p.stamps)
    KB_RETURN_IF_ERROR(recordClearStamps(*p.commands, *p.stamps));
  KB_RETURN_IF_ERROR(recordFlush(*p.commands, flush_.get()));
  KB_RETURN_IF_ERROR(
      recordTimed(p, [&] { return subject.record(*p.commands); }));
  KB_RETURN_IF_ERROR(warmUp(*p.commands));
  return p;
}

StatusOr<double> Engine::timeBatch(const Subject &subject, hal::Timer &timer,
                                   uint32_t dispatches) {
  hal::CommandBufferOptions options;
  options.useGraph = true;
  KB_ASSIGN_OR_RETURN(auto batch, device_.createCommandBuffer(options));
  KB_RETURN_IF_ERROR(batch->writeTimestamp(timer, 0));
  for (uint32_t i = 0; i < dispatches; ++i) {
    KB_RETURN_IF_ERROR(subject.record(*batch));
    KB_RETURN_IF_ERROR(batch->barrier());
  }
  KB_RETURN_IF_ERROR(batch->writeTimestamp(timer, 1));
  KB_RETURN_IF_ERROR(warmUp(*batch));
  KB_ASSIGN_OR_RETURN(auto times, submitTimed(*batch, timer));
  return times.first;
}

StatusOr<double> Engine::probeDispatchNs(const Subject &subject,
                                         hal::Timer &timer) {
  // Timed as a batch, like the hot samples themselves: one dispatch between
  // two timestamps also times the gap before its launch and overestimates
  // a short kernel. A dispatch that alone fills a hot sample needs no
  // second probe (the gap is small beside it).
  constexpr uint32_t kProbeDispatches = 8;
  KB_ASSIGN_OR_RETURN(double oneNs, timeBatch(subject, timer, 1));
  if (oneNs >= settings_.hotMinSampleNs)
    return oneNs;
  KB_ASSIGN_OR_RETURN(double batchNs,
                      timeBatch(subject, timer, kProbeDispatches));
  return batchNs / kProbeDispatches;
}

StatusOr<Engine::Prepared> Engine::prepareHot(const Subject &subject) {
  Prepared p;
  KB_RETURN_IF_ERROR(createTimerAndStamps(p));
  KB_ASSIGN_OR_RETURN(double estimateNs, probeDispatchNs(subject, *p.timer));
  double wanted =
      std::ceil(settings_.hotMinSampleNs / std::max(estimateNs, 1.0));
  p.dispatches = static_cast<uint32_t>(std::clamp(
      wanted, 1.0, double(std::max(settings_.maxHotDispatches, 1u))));
  hal::CommandBufferOptions options;
  options.useGraph = true;
  KB_ASSIGN_OR_RETURN(p.commands, device_.createCommandBuffer(options));
  if (p.stamps)
    KB_RETURN_IF_ERROR(recordClearStamps(*p.commands, *p.stamps));
  KB_RETURN_IF_ERROR(recordTimed(p, [&]() -> Status {
    for (uint32_t i = 0; i < p.dispatches; ++i) {
      KB_RETURN_IF_ERROR(subject.record(*p.commands));
      KB_RETURN_IF_ERROR(p.commands->barrier());
    }
    return okStatus();
  }));
  KB_RETURN_IF_ERROR(warmUp(*p.commands));
  return p;
}

StatusOr<std::vector<Engine::Prepared>>
Engine::prepareAll(const std::vector<Subject> &subjects, TimingMode mode,
                   std::vector<Timing> &results) {
  std::vector<Prepared> prepared;
  for (size_t i = 0; i < subjects.size(); ++i) {
    KB_ASSIGN_OR_RETURN(Prepared p, mode == TimingMode::Cold
                                        ? prepareCold(subjects[i])
                                        : prepareHot(subjects[i]));
    results[i].mode = mode;
    results[i].dispatchesPerSample = p.dispatches;
    results[i].stopReason = StopReason::NotStopped;
    prepared.push_back(std::move(p));
  }
  return prepared;
}

bool Engine::budgetSpent() const {
  return settings_.budgetDeadline && Clock::now() >= *settings_.budgetDeadline;
}

StatusOr<std::vector<Timing>>
Engine::measureInterleaved(const std::vector<Subject> &subjects,
                           TimingMode mode, const ProgressFn &progress,
                           const InterruptFn &interrupted) {
  std::vector<Timing> results(subjects.size());
  std::vector<StoppingRule> rules(subjects.size(),
                                  StoppingRule(settings_.stopping));
  KB_ASSIGN_OR_RETURN(std::vector<Prepared> prepared,
                      prepareAll(subjects, mode, results));
  double defaultClockHz = device_.properties().clockKhz * 1e3;
  std::vector<ThrottleRule> throttle(subjects.size(),
                                     ThrottleRule(defaultClockHz));
  auto start = Clock::now();
  auto unfinished = [&](size_t i) {
    return results[i].stopReason == StopReason::NotStopped;
  };
  auto anyUnfinished = [&] {
    for (size_t i = 0; i < subjects.size(); ++i)
      if (unfinished(i))
        return true;
    return false;
  };
  bool lockstep = settings_.lockstep;
  std::vector<std::optional<Sample>> round(subjects.size());
  std::vector<char> throttled(subjects.size());
  while (anyUnfinished()) {
    // One round: a sample of every subject still sampling (all of them in
    // lockstep).
    bool roundThrottled = false;
    for (size_t i = 0; i < subjects.size(); ++i) {
      round[i].reset();
      throttled[i] = false;
      if (!lockstep && !unfinished(i))
        continue;
      if (interrupted && interrupted()) {
        for (Timing &r : results)
          if (r.stopReason == StopReason::NotStopped)
            r.stopReason = StopReason::Interrupted;
        return finishAll(results);
      }
      KB_ASSIGN_OR_RETURN(Sample sample, takeSample(prepared[i]));
      // Throttled, or a time no clock can give (a timestamp that went
      // backwards): not a measurement of the kernel; counted as discarded.
      throttled[i] = (sample.smClockMHz &&
                      !throttle[i].accept(*sample.smClockMHz * 1e6)) ||
                     !(sample.gpuNs > 0) || !std::isfinite(sample.gpuNs);
      roundThrottled |= throttled[i] != 0;
      round[i] = sample;
    }
    double recoveryS = 0;
    for (size_t i = 0; i < subjects.size(); ++i) {
      if (!round[i])
        continue;
      const Sample &sample = *round[i];
      StoppingRule &rule = rules[i];
      if (lockstep ? roundThrottled : throttled[i] != 0) {
        ++results[i].discarded;
        recoveryS = std::max(recoveryS, throttle[i].recoveryDelayS());
      } else {
        results[i].samples.push_back(sample);
        bool stop = rule.add(sample.gpuNs,
                             sample.hostNs * results[i].dispatchesPerSample);
        if (stop && unfinished(i))
          results[i].stopReason = rule.reason();
        if (progress)
          progress(i, rule);
      }
      if (unfinished(i) && rule.checkTimeout(secondsSince(start)))
        results[i].stopReason = rule.reason();
      if (unfinished(i) && budgetSpent())
        results[i].stopReason = StopReason::Budget;
    }
    // Let the GPU recover from throttling before the next round.
    if (recoveryS > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(recoveryS));
  }
  return finishAll(results);
}

std::vector<Timing> Engine::finishAll(std::vector<Timing> &results) {
  for (Timing &r : results)
    finishTiming(r, settings_.stopping.maxNoise);
  return std::move(results);
}

void finishTiming(Timing &timing, double maxNoise) {
  std::vector<double> gpu;
  for (const Sample &s : timing.samples)
    gpu.push_back(s.gpuNs);
  timing.summary = summarize(gpu);
  timing.noiseTargetMet =
      timing.summary.count >= 2 && timing.summary.relativeStdev <= maxNoise;
}

} // namespace kb::bench
