//===- runtime/hal/counters.h - Hardware counters of one range -----------===//
//
// `bench --counters`: the GPU's own performance counters over one run of a
// variant's work. What Nsight Compute's speed-of-light section starts from:
// the bytes DRAM moved, how full the SMs were kept (achieved occupancy) and
// how busy they were (SM throughput). Each kernel the work launches is
// counted on its own, from its start to its end on the GPU (not the host's
// launch and wait around it), and the session sums them. The counters a GPU
// can count at once are few, so collecting them takes several passes over
// the same work (replays): the caller runs the work once per pass, the same
// way each time, between beginPass() and endPass(), until endPass() says
// every pass was submitted.
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

namespace kb::hal {

/// The counters of the kernels of one run of the work: sums over the
/// kernels, and percentages weighted by each kernel's GPU time.
struct KernelCounters {
  double dramBytesRead = 0;    // dram__bytes_read.sum
  double dramBytesWritten = 0; // dram__bytes_write.sum
  /// Active warps per SM over the time an SM was active, as a percentage of
  /// the warps it can hold (sm__warps_active.avg.pct_of_peak_sustained_active).
  double achievedOccupancyPct = 0;
  /// The busiest SM unit's throughput over the kernel, as a percentage of
  /// its peak (sm__throughput.avg.pct_of_peak_sustained_elapsed).
  double smThroughputPct = 0;
  /// The kernels' GPU time, start to end (gpu__time_duration.sum).
  double gpuTimeNs = 0;
  /// Kernels counted.
  uint32_t kernels = 0;
  /// Replay passes the profiler needed for these counters.
  uint32_t passes = 0;
};

/// One run of work counted over as many passes as the counters need. Not
/// thread-safe; must not outlive its Device.
class CounterSession {
public:
  virtual ~CounterSession() = default;
  CounterSession(const CounterSession &) = delete;
  CounterSession &operator=(const CounterSession &) = delete;

  /// Opens one pass: the kernels of the work submitted and waited for until
  /// endPass() are what is counted.
  virtual Status beginPass() = 0;
  /// Closes the pass; true once every pass the counters need was run.
  virtual StatusOr<bool> endPass() = 0;
  /// The range's counters, after endPass() said true.
  virtual StatusOr<KernelCounters> values() = 0;

protected:
  CounterSession() = default;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_COUNTERS_H_
