//===- runtime/bench/clock_stamp.h - SM clock per sample, and throttling --===//
//
// CUDA samples are bracketed by a kernel (kernels/clock_stamp.cu, its PTX
// embedded at build time) that writes %globaltimer and clock64(): delta
// cycles / delta nanoseconds is the SM clock of that sample. clock64() is
// per SM, so, as in nvbench, the kernel runs one single-thread block per SM
// and only the block on SM 0 writes: both stamps of a sample come from one
// SM. The slots are cleared before each sample; a stamp left at zero (no
// block ran on SM 0) gives no clock rather than a stale one. As in
// nvbench, a sample taken below 75 % of the device's default clock
// (CLOCK_RATE) is discarded and counted, and the harness waits for the GPU
// to recover (50 ms, growing 1.5x after more than two discards in a row, at
// most 0.5 s). Vulkan has no portable SM clock: its samples carry none.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_CLOCK_STAMP_H_
#define KB_RUNTIME_BENCH_CLOCK_STAMP_H_

#include "common/kernel_abi.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace kb::bench {

/// The PTX of kb_clock_stamp(u64 *out, u32 slot) (sm_75, JIT elsewhere).
std::string_view clockStampPtx();
/// Its ABI: binding `out` (u64, write-only), constant `slot` (u32), 1 thread
/// per block.
KernelAbi clockStampAbi();
/// Blocks per clock-stamp launch: one per SM (|computeUnits|, the SM count),
/// so that one lands on SM 0. When the SM count is unknown (0), more blocks
/// than any GPU has SMs, which costs microseconds outside the timed region.
uint32_t clockStampBlocks(uint32_t computeUnits);

/// SM clock in Hz from two stamps {globaltimer ns, clock64} taken before and
/// after a sample; none when either stamp was not written (zero: the slots
/// are cleared before each sample) or the timer did not advance.
std::optional<double> clockFromStamps(uint64_t beginNs, uint64_t beginCycles,
                                      uint64_t endNs, uint64_t endCycles);

/// nvbench's throttle rule.
class ThrottleRule {
public:
  explicit ThrottleRule(double defaultClockHz, double threshold = 0.75)
      : defaultClockHz_(defaultClockHz), threshold_(threshold) {}

  /// Whether a sample taken at |clockHz| counts. A rejected one grows the
  /// recovery delay the caller should wait (recoveryDelayS()).
  bool accept(double clockHz);
  double recoveryDelayS() const { return delayS_; }
  uint32_t consecutiveDiscards() const { return consecutive_; }

private:
  double defaultClockHz_;
  double threshold_;
  double delayS_ = 0.05;
  uint32_t consecutive_ = 0;
};

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_CLOCK_STAMP_H_
