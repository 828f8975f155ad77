//===- runtime/hal/drivers/cuda/cupti_session.h - Counters by CUPTI -------===//
//
// The CUDA driver's counter sessions (runtime/hal/counters.h) are CUPTI's
// range profiler in auto-range, user-replay mode: every kernel launched
// between Start and Stop is a range of its own (as Nsight Compute counts
// kernel by kernel, so the host's launch and wait are in none), the caller
// replays its work once per pass, and once every pass has run the ranges
// are decoded, evaluated on the host and summed into KernelCounters.
//
// This header names no CUPTI type, so the driver's files that see the CUDA
// declarations of cuda_headers.h never meet the toolkit's cuda.h: the two
// declare the same names. Without CUPTI's headers at build time
// (KB_HAVE_CUPTI unset) every session is Unavailable and says so.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SESSION_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SESSION_H_

#include "common/status.h"
#include "runtime/hal/counters.h"

#include <functional>
#include <memory>
#include <optional>

namespace kb::hal::cuda {

struct CuptiSymbols; // cupti_symbols.h

/// The metrics a session asks CUPTI for, in KernelCounters' order.
inline constexpr const char *kCounterMetrics[] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__time_duration.sum",
};
/// Kernels one pass may launch: the counter-data image holds this many
/// ranges (a dispatch benchmark launches one or a few).
inline constexpr size_t kMaxCountedKernels = 64;

/// NVIDIA's CUPTI for one driver: loaded by the first session that asks
/// (nothing is loaded for a run without --counters) and kept, or why it
/// cannot be.
class CuptiLibrary {
public:
  /// |preset|: an already resolved table (a test's fake); null: libcupti is
  /// looked for on the loader's path, then in the toolkit's directories.
  explicit CuptiLibrary(std::shared_ptr<const CuptiSymbols> preset = nullptr);
  StatusOr<const CuptiSymbols *> get();

private:
  std::shared_ptr<const CuptiSymbols> syms_;
  std::optional<Status> failure_;
};

/// Where the session runs: the device's context (a CUcontext), its CUDA
/// ordinal, and how to make the context current on this thread.
struct CuptiTarget {
  void *context = nullptr;
  size_t deviceIndex = 0;
  std::function<Status()> makeCurrent;
};

/// Starts a session over |target|. Unavailable when the host refuses
/// counters (NVreg_RestrictProfilingToAdminUsers) or this GPU has none.
StatusOr<std::unique_ptr<CounterSession>>
createCuptiSession(const CuptiSymbols &syms, CuptiTarget target);

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SESSION_H_
