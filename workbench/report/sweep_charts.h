//===- workbench/report/sweep_charts.h - Results against the size ---------===//
//
// A kernel with a `[bench] sweep` is one benchmark per point (bench.json's
// `benchmarks[].sweep`). report.html draws its points against the swept
// size, as triton's perf_report and nvbench's axes do: one figure per swept
// kernel (and per value of any other swept constant), with median time,
// GB/s and, where the kernel declares FLOPs, GFLOP/s against the last swept
// constant, each variant a line with its Q1..Q3 noise band, both axes
// logarithmic.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_SWEEP_CHARTS_H_
#define KB_WORKBENCH_REPORT_SWEEP_CHARTS_H_

#include "workbench/report/report_rows.h"

#include <string>
#include <vector>

namespace kb::report {

/// `n=1024`, `m=64 n=1024`: a benchmark's sweep point; empty when none.
std::string sweepLabel(const Benchmark &benchmark);

/// report.html's section of sweep charts; empty when no timed row has a
/// sweep point. Each point is a `<circle class="sweep-point">` with
/// `data-variant`, `data-metric` (time, gbps, gflops) and `data-x`.
std::string sweepChartSection(const std::vector<ReportRow> &rows);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_SWEEP_CHARTS_H_
