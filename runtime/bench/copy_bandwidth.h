//===- runtime/bench/copy_bandwidth.h - The measured peak for % of peak ---===//
//
// Roofline figures use a *measured* peak, not the
// nominal 2 x memclk x buswidth: a device-to-device copy over max(4 x L2,
// 64 MiB) (capped by the allocation limit), timed with device timestamps,
// median of 5; the bandwidth counts bytes read + written. The result is
// cached per device identity (driver, name, driver and API version) in a
// small text file, so the probe runs once per device and driver.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_
#define KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_

#include "common/status.h"
#include "runtime/bench/cache_flush.h"
#include "runtime/hal/device.h"

#include <string>

namespace kb::bench {

struct PeakBandwidth {
  double bytesPerS = 0;
  bool cached = false;
};

/// The cache key of |device|: "driver|name|driverVersion|apiVersion".
std::string deviceIdentity(const hal::DeviceProperties &device);

/// Measures the copy bandwidth of |device| now.
StatusOr<double> measureCopyBandwidth(hal::Device &device, const L2Size &l2);

/// The cached figure for |device| in |cacheFile|, else measured and added
/// to it ("" = never cache). A cache file that cannot be read or written
/// only costs a new measurement.
StatusOr<PeakBandwidth> peakCopyBandwidth(hal::Device &device, const L2Size &l2,
                                          const std::string &cacheFile);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_
