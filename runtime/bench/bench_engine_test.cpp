//===- runtime/bench/bench_engine_test.cpp - Engine rules without a GPU ---===//
//
// What the measurement engine decides on numbers alone: summaries, the
// stopping rule (noise target, plateau, quick settings, timeout), L2 flush
// sizing, timestamp wrap-around. Runs everywhere.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/cache_flush.h"
#include "runtime/bench/clock_stamp.h"
#include "runtime/bench/measure.h"
#include "runtime/bench/statistics.h"
#include "runtime/bench/stopping_rule.h"
#include "runtime/hal/timer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kb::bench {
namespace {

TEST(StatisticsTest, InterpolatedQuartilesAndUnbiasedStdev) {
  Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.q1, 2);
  EXPECT_EQ(s.q3, 4);
  EXPECT_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stdev, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(s.relativeStdev, std::sqrt(2.5) / 3, 1e-12);
  // numpy.quantile's default: an even count's median is the mean of the
  // two middle samples; quartiles interpolate between order statistics.
  Summary even = summarize({40, 10, 30, 20});
  EXPECT_DOUBLE_EQ(even.median, 25);
  EXPECT_DOUBLE_EQ(even.q1, 17.5); // numpy.quantile([10,20,30,40], 0.25)
  EXPECT_DOUBLE_EQ(even.q3, 32.5);
  EXPECT_DOUBLE_EQ(even.iqr, 15);
  EXPECT_EQ(summarize({}).count, 0u);
  EXPECT_EQ(summarize({7}).stdev, 0);
}

TEST(StatisticsTest, OnlineVarianceIsStableForNearlyEqualValues) {
  OnlineVariance v;
  for (int i = 0; i < 1000; ++i)
    v.add(1e9 + (i % 2));
  EXPECT_NEAR(v.mean(), 1e9 + 0.5, 1e-3);
  EXPECT_NEAR(v.variance(), 0.25 * 1000 / 999, 1e-6);
}

TEST(StoppingRuleTest, StopsOnNoiseOnlyAfterMinSamplesAndMinTime) {
  StoppingSettings settings;
  settings.minSamples = 10;
  settings.minTimeS = 1e-3; // 1 ms spent sampling
  settings.maxNoise = 0.005;
  StoppingRule rule(settings);
  // 100 us samples without jitter: the noise is met at once, but 10
  // samples and more than 1 ms of sampling are required first.
  while (!rule.add(100e3, 100e3)) {
  }
  EXPECT_EQ(rule.reason(), StopReason::NoiseTarget);
  EXPECT_EQ(rule.count(), 11u); // 10 x 100 us is not > 1 ms; 11 is
  EXPECT_TRUE(rule.noiseMet());
}

// A tiny cold kernel: 2 us of GPU time but 200 us of wall time per sample
// (flush, submit, wait). min-time bounds the time spent sampling, so 0.5 s
// is reached after 2501 samples; counted in GPU time it would take 250001
// samples, far past any timeout.
TEST(StoppingRuleTest, MinTimeCountsTheWallTimeOfTheSamples) {
  StoppingSettings settings;
  settings.minSamples = 10;
  settings.minTimeS = 0.5;
  StoppingRule rule(settings);
  size_t n = 0;
  while (!rule.add(2e3, 200e3) && n < 1000000)
    ++n;
  EXPECT_EQ(rule.reason(), StopReason::NoiseTarget);
  EXPECT_EQ(rule.count(), 2501u); // 2500 x 200 us is not > 0.5 s; 2501 is
}

TEST(StoppingRuleTest, NoisyButStableNoiseStopsOnThePlateau) {
  StoppingSettings settings;
  settings.minTimeS = 0;
  StoppingRule rule(settings);
  // 10 % alternating noise never meets 0.5 %; its estimate converges, so the
  // plateau rule stops it (checked every 16 samples after 64 noise values).
  size_t n = 0;
  while (!rule.add(n % 2 ? 110.0 : 90.0, 100.0) && n < 10000)
    ++n;
  EXPECT_EQ(rule.reason(), StopReason::NoisePlateau);
  EXPECT_LT(rule.count(), 200u);
  EXPECT_EQ(rule.count() % 16, 0u);
  EXPECT_FALSE(rule.noiseMet());
}

TEST(StoppingRuleTest, QuickSettingsStopAtTenSamplesWithoutTheNoiseTarget) {
  StoppingSettings quick = quickStoppingSettings();
  EXPECT_EQ(quick.minSamples, 10u);
  EXPECT_EQ(quick.timeoutS, kQuickTimeoutS);
  EXPECT_FALSE(quick.noiseRequired);
  StoppingRule rule(quick);
  for (int i = 0; i < 9; ++i)
    EXPECT_FALSE(rule.add(i % 2 ? 1e6 : 2e6, 2e6));
  EXPECT_TRUE(rule.add(1e6, 2e6));
  EXPECT_EQ(rule.reason(), StopReason::MinimumSamples);
  EXPECT_GT(rule.noise(), 0.005); // reported, not required
}

// The quick limit was 1 s per benchmark, 0.5 s per mode: a 150 ms dispatch,
// interleaved with its reference, got 2 samples and no verdict. Ten samples
// are the goal; the limit only bounds them.
TEST(StoppingRuleTest, QuickReachesTenSamplesOfALongDispatch) {
  StoppingSettings quick = quickStoppingSettings();
  double perModeS = quick.timeoutS / 2; // cold and hot share it
  StoppingSettings mode = quick;
  mode.timeoutS = perModeS;
  StoppingRule candidate(mode);
  double wallS = 0, dispatchS = 0.15;
  bool stopped = false;
  while (!stopped && !candidate.checkTimeout(wallS)) {
    wallS += 2 * dispatchS; // a round: the candidate's and the reference's
    double gpuNs = dispatchS * 1e9 * (candidate.count() % 2 ? 1.1 : 0.9);
    stopped = candidate.add(gpuNs, dispatchS * 1e9);
  }
  EXPECT_EQ(candidate.count(), 10u);
  EXPECT_EQ(candidate.reason(), StopReason::MinimumSamples);
  // A dispatch too long for 10 samples within the limit still stops there,
  // and says so.
  StoppingRule slow(mode);
  wallS = 0, dispatchS = 1.5;
  stopped = false;
  while (!stopped && !slow.checkTimeout(wallS)) {
    wallS += 2 * dispatchS;
    stopped = slow.add(dispatchS * 1e9, dispatchS * 1e9);
  }
  EXPECT_LT(slow.count(), 10u);
  EXPECT_EQ(slow.reason(), StopReason::Timeout);
}

TEST(StoppingRuleTest, TimeoutEndsSamplingWhateverTheNoise) {
  StoppingSettings settings;
  settings.timeoutS = 2;
  StoppingRule rule(settings);
  EXPECT_FALSE(rule.add(1, 1));
  EXPECT_FALSE(rule.checkTimeout(1.9));
  EXPECT_TRUE(rule.checkTimeout(2.1));
  EXPECT_EQ(rule.reason(), StopReason::Timeout);
  EXPECT_TRUE(std::isinf(rule.noise())); // fewer than 5 samples
}

TEST(CacheFlushTest, SizeComesFromFlagDriverTableHostThenDefault) {
  hal::DeviceProperties gpu;
  gpu.name = "NVIDIA H200";
  gpu.type = hal::DeviceType::DiscreteGpu;
  EXPECT_EQ(selectL2Size(gpu, uint64_t(8) << 20, 0).source, "flag");
  EXPECT_EQ(selectL2Size(gpu, std::nullopt, 0).bytes, uint64_t(60) << 20);
  EXPECT_EQ(selectL2Size(gpu, std::nullopt, 0).source, "table");
  gpu.l2CacheBytes = 62914560; // CUDA's attribute wins over the table
  EXPECT_EQ(selectL2Size(gpu, std::nullopt, 0).source, "driver");
  EXPECT_EQ(selectL2Size(gpu, std::nullopt, 0).flushBytes(), 2 * 62914560ull);

  hal::DeviceProperties cpu;
  cpu.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  cpu.type = hal::DeviceType::Cpu;
  EXPECT_EQ(selectL2Size(cpu, std::nullopt, 32 << 20).source, "host-llc");
  EXPECT_EQ(selectL2Size(cpu, std::nullopt, 0).source, "default");
  EXPECT_EQ(selectL2Size(cpu, std::nullopt, 0).bytes, kDefaultL2Bytes);

  hal::DeviceProperties unknown;
  unknown.name = "Some New GPU";
  EXPECT_EQ(selectL2Size(unknown, std::nullopt, 32 << 20).source, "default");
}

TEST(CacheFlushTest, ParsesSysfsCacheSizes) {
  EXPECT_EQ(parseCacheSize("32768K"), 32768ull << 10);
  EXPECT_EQ(parseCacheSize("8M\n"), 8ull << 20);
  EXPECT_EQ(parseCacheSize("1024"), 1024u);
  EXPECT_EQ(parseCacheSize("K"), 0u);
  EXPECT_EQ(parseCacheSize("12Q"), 0u);
}

TEST(TimestampTest, DeltaIsMaskedAndSurvivesWrapAround) {
  // 36 valid bits: the counter wraps at 2^36.
  uint64_t wrap = uint64_t(1) << 36;
  EXPECT_EQ(hal::timestampDelta(100, 250, 36), 150u);
  EXPECT_EQ(hal::timestampDelta(wrap - 10, 5, 36), 15u);
  // Garbage above the valid bits is ignored.
  EXPECT_EQ(hal::timestampDelta((uint64_t(7) << 40) | 100, 250, 36), 150u);
  EXPECT_EQ(hal::timestampDelta(5, 3, 64), ~uint64_t(0) - 1);
}

TEST(MeasureTest, ModeSummaryReportsNoiseAgainstTheTarget) {
  Timing r;
  for (double v : {100.0, 100.1, 99.9, 100.0})
    r.samples.push_back({v, v * 2, std::nullopt});
  finishTiming(r, 0.005);
  EXPECT_EQ(r.summary.count, 4u);
  EXPECT_DOUBLE_EQ(r.summary.median, 100);
  EXPECT_TRUE(r.noiseTargetMet);
  finishTiming(r, 1e-6);
  EXPECT_FALSE(r.noiseTargetMet);
}

TEST(ClockStampTest, ClockFromStampsIsCyclesPerSecond) {
  // 1.98e6 cycles over 1 ms: 1.98 GHz.
  auto hz = clockFromStamps(1000000, 5000, 2000000, 5000 + 1980000);
  ASSERT_TRUE(hz);
  EXPECT_NEAR(*hz, 1.98e9, 1);
  EXPECT_FALSE(clockFromStamps(10, 0, 10, 5)); // the timer did not move
  EXPECT_FALSE(clockFromStamps(10, 9, 20, 5)); // cycles went backwards
}

// No block of the stamp kernel ran on SM 0, so a slot kept the zeros it was
// cleared to: that sample has no clock, and is not read as a clock made of
// this sample's end stamp and another sample's begin stamp.
TEST(ClockStampTest, AnUnwrittenStampGivesNoClock) {
  EXPECT_FALSE(clockFromStamps(0, 0, 2000000, 1980000));
  EXPECT_FALSE(clockFromStamps(1000000, 5000, 0, 0));
  EXPECT_FALSE(clockFromStamps(0, 0, 0, 0));
}

TEST(ClockStampTest, OneBlockPerSmOrMoreThanAnyGpuHasWhenUnknown) {
  EXPECT_EQ(clockStampBlocks(132), 132u);
  EXPECT_GE(clockStampBlocks(0), 256u);
}

TEST(ClockStampTest, ThrottledSamplesAreDiscardedWithGrowingRecovery) {
  ThrottleRule rule(1.98e9);
  EXPECT_TRUE(rule.accept(1.98e9));
  EXPECT_TRUE(rule.accept(0.75 * 1.98e9)); // exactly at the threshold
  EXPECT_FALSE(rule.accept(0.5 * 1.98e9));
  EXPECT_DOUBLE_EQ(rule.recoveryDelayS(), 0.05);
  EXPECT_FALSE(rule.accept(0.5 * 1.98e9));
  EXPECT_DOUBLE_EQ(rule.recoveryDelayS(), 0.05);
  EXPECT_FALSE(rule.accept(0.5 * 1.98e9)); // third in a row: 1.5x
  EXPECT_DOUBLE_EQ(rule.recoveryDelayS(), 0.075);
  for (int i = 0; i < 20; ++i)
    rule.accept(1e6);
  EXPECT_DOUBLE_EQ(rule.recoveryDelayS(), 0.5); // capped
  EXPECT_TRUE(rule.accept(2e9));                // recovered: reset
  EXPECT_DOUBLE_EQ(rule.recoveryDelayS(), 0.05);
  EXPECT_EQ(rule.consecutiveDiscards(), 0u);
  // No default clock known: every sample counts.
  ThrottleRule unknown(0);
  EXPECT_TRUE(unknown.accept(1));
}

} // namespace
} // namespace kb::bench
