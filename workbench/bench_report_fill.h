//===- workbench/bench_report_fill.h - Engine results into the report -----===//
//
// The measurement engine (runtime/bench) has its own result types so that
// runtime/ does not depend on the report; these functions turn them into
// the bench-result model (workbench/report/bench_results.h) that bench.json,
// the table and every other format are rendered from.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_REPORT_FILL_H_
#define KB_WORKBENCH_BENCH_REPORT_FILL_H_

#include "runtime/bench/cache_flush.h"
#include "runtime/bench/correctness.h"
#include "runtime/bench/measure.h"
#include "runtime/hal/device.h"
#include "workbench/bench_settings.h"
#include "workbench/report/bench_results.h"

#include <optional>
#include <string>

namespace kb::workbench {

report::Timing toTiming(const bench::ModeResult &mode);
report::Correctness toCorrectness(const bench::CorrectnessResult &result);
report::DeviceInfo toDeviceInfo(const hal::DeviceProperties &device,
                                const bench::L2Size &l2,
                                std::optional<double> peakBytesPerS);
/// |cpuDevice|: the quick settings apply because the noise target is never
/// met there (the report says so).
report::BenchSettings toReportSettings(const BenchSettings &settings,
                                       std::optional<double> budgetS,
                                       bool cpuDevice);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_REPORT_FILL_H_
