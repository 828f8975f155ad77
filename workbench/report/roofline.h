//===- workbench/report/roofline.h - Each benchmark under the roofline ----===//
//
// With both ceilings measured (the copy bandwidth and the FMA throughput:
// runtime/bench/copy_bandwidth.h, fma_peak.h) and a kernel's declared FLOPs
// and bytes (`[roofline]`), each timed row is a point under the roofline:
// its arithmetic intensity (FLOPs per byte) against its achieved GFLOP/s.
// The terminal and report.md say which ceiling is the lower at that
// intensity and how close the row comes to it; report.html draws the
// roofline (log-log, both ceilings, the ridge point) with every row on it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_ROOFLINE_H_
#define KB_WORKBENCH_REPORT_ROOFLINE_H_

#include "workbench/report/bench_results.h"

#include <string>
#include <vector>

namespace kb::report {

/// "matmul_256x256x256/candidate/cold: 42.7 FLOP/byte, compute-bound: 31%
/// of the roofline (12.4 of 40.1 GFLOP/s)", one per row with a bound, at
/// most |maxShown| and then how many more.
std::vector<std::string> rooflineLines(const BenchReport &report,
                                       size_t maxShown);

/// report.html's roofline section; empty when no row has a bound.
std::string rooflineSection(const BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_ROOFLINE_H_
