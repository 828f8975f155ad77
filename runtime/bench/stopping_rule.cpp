//===- runtime/bench/stopping_rule.cpp - When to stop sampling ------------===//
#include "runtime/bench/stopping_rule.h"

#include <cmath>
#include <limits>

namespace kb::bench {

namespace {
constexpr size_t kNoiseRing = 512;
constexpr size_t kPlateauMinValues = 64;
constexpr size_t kPlateauCheckEvery = 16;
constexpr double kPlateauRelStdev = 0.05;
constexpr size_t kMaxNonFinite = 64;
constexpr size_t kNoiseMinSamples = 5;
} // namespace

StoppingSettings quickStoppingSettings() {
  StoppingSettings s;
  s.minSamples = 10;
  s.minTimeS = 0;
  // Ten samples are the goal and the time limit only its bound: a dispatch
  // of 100 ms needs 2 s per mode for 10 candidate and 10 reference samples,
  // and 1 s gave such kernels 1-3 samples, too few for `compare` to judge.
  // Short dispatches stop at 10 samples long before it.
  s.timeoutS = kQuickTimeoutS;
  s.noiseRequired = false;
  return s;
}

double StoppingRule::noise() const {
  if (variance_.count() < kNoiseMinSamples)
    return std::numeric_limits<double>::infinity();
  return variance_.relativeStdev();
}

bool StoppingRule::plateaued() const {
  if (noiseRing_.size() <= kPlateauMinValues ||
      variance_.count() % kPlateauCheckEvery != 0)
    return false;
  OnlineVariance ofNoise;
  for (double n : noiseRing_)
    ofNoise.add(n);
  return ofNoise.relativeStdev() < kPlateauRelStdev;
}

bool StoppingRule::add(double gpuNs, double wallNs) {
  variance_.add(gpuNs);
  wallNs_ += wallNs;
  double current = noise();
  if (variance_.count() >= kNoiseMinSamples) {
    if (std::isfinite(current)) {
      nonFiniteRun_ = 0;
      noiseRing_.push_back(current);
      if (noiseRing_.size() > kNoiseRing)
        noiseRing_.pop_front();
    } else {
      ++nonFiniteRun_;
    }
  }
  // As nvbench: the time must exceed min-time (not merely reach it).
  if (variance_.count() < settings_.minSamples ||
      (settings_.minTimeS > 0 && wallNs_ <= settings_.minTimeS * 1e9))
    return false;
  if (current <= settings_.maxNoise)
    reason_ = StopReason::NoiseTarget;
  else if (!settings_.noiseRequired)
    reason_ = StopReason::MinimumSamples;
  else if (plateaued())
    reason_ = StopReason::NoisePlateau;
  else if (nonFiniteRun_ >= kMaxNonFinite)
    reason_ = StopReason::NoiseNotFinite;
  return reason_ != StopReason::NotStopped;
}

bool StoppingRule::checkTimeout(double wallS) {
  if (wallS <= settings_.timeoutS)
    return false;
  reason_ = StopReason::Timeout;
  return true;
}

} // namespace kb::bench
