//===- workbench/bench/bench_report_fill.h - The report's device, ---------===//
//
// The results a benchmark produces are the runtime's own types
// (runtime/bench/results.h), which the report uses as they are; what the
// report says about the run around them — the device as the HAL describes
// it, the measurement settings as they applied — is made here.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_REPORT_FILL_H_
#define KB_WORKBENCH_BENCH_BENCH_REPORT_FILL_H_

#include "runtime/bench/cache_flush.h"
#include "runtime/bench/measure.h"
#include "runtime/hal/device.h"
#include "workbench/bench/bench_settings.h"
#include "workbench/report/bench_results.h"

#include <optional>
#include <string>

namespace kb::workbench {

/// The device's measured ceilings (copy_bandwidth.h, fma_peak.h); none
/// where a probe did not run or failed.
struct DevicePeaks {
  std::optional<double> copyBytesPerS;
  std::optional<double> fmaFlopsPerS;
};

report::DeviceInfo toDeviceInfo(const hal::DeviceProperties &device,
                                const bench::L2Size &l2,
                                const DevicePeaks &peaks);
/// |cpuDevice|: the quick settings apply because the noise target is never
/// met there (the report says so).
report::BenchSettings toReportSettings(const BenchSettings &settings,
                                       std::optional<double> budgetS,
                                       bool cpuDevice);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_REPORT_FILL_H_
