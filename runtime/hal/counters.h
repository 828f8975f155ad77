//===- runtime/hal/counters.h - Hardware counters of one range -----------===//
//
// `bench --counters`: the GPU's own performance counters over one run of a
// variant's work. What Nsight Compute's speed-of-light section starts from:
// the bytes DRAM moved, how full the SMs were kept (achieved occupancy) and
// how busy they were (SM throughput). The counters a GPU can count at once
// are few, so collecting them takes several passes over the same work
// (replays): the caller runs the work once per pass, the same way each
// time, between beginPass() and endPass(), until endPass() says every pass
// was submitted.
//
// The CUDA driver implements this with CUPTI's range profiler where NVIDIA's
// libcupti is installed; other drivers have no counters (Unavailable, with
// the reason).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_COUNTERS_H_
#define KB_RUNTIME_HAL_COUNTERS_H_

#include "common/status.h"

#include <cstdint>
#include <string>

namespace kb::hal {

/// One range's counters, as the profiler evaluated them.
struct KernelCounters {
  double dramBytesRead = 0;    // dram__bytes_read.sum
  double dramBytesWritten = 0; // dram__bytes_write.sum
  /// Active warps per SM over the time an SM was active, as a percentage of
  /// the warps it can hold (sm__warps_active.avg.pct_of_peak_sustained_active).
  double achievedOccupancyPct = 0;
  /// The busiest SM unit's throughput over the range, as a percentage of its
  /// peak (sm__throughput.avg.pct_of_peak_sustained_elapsed).
  double smThroughputPct = 0;
  /// Replay passes the profiler needed for these counters.
  uint32_t passes = 0;
};

/// One range counted over as many passes as the counters need. Not
/// thread-safe; must not outlive its Device.
class CounterSession {
public:
  virtual ~CounterSession() = default;
  CounterSession(const CounterSession &) = delete;
  CounterSession &operator=(const CounterSession &) = delete;

  /// Opens the range |name| for one pass: the work submitted and waited
  /// for until endPass() is what is counted.
  virtual Status beginPass(const std::string &name) = 0;
  /// Closes the pass; true once every pass the counters need was run.
  virtual StatusOr<bool> endPass() = 0;
  /// The range's counters, after endPass() said true.
  virtual StatusOr<KernelCounters> values() = 0;

protected:
  CounterSession() = default;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_COUNTERS_H_
