//===- workbench/report/bench_table.h - The table `bench` ends with -------===//
//
// One row per (benchmark, variant, timing mode): median ± IQR per dispatch,
// accepted samples (and discarded ones), noise, GB/s and % of the measured
// copy peak, speedup of the candidate over the reference in the same mode
// (flagged `!` above 10x: look at it before believing it), correctness.
// INCORRECT, ERROR and SKIPPED benchmarks get one row plus the reason, and no
// timing. Then the whole-program result. Rendered from the report after
// report::computeDerived.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_BENCH_TABLE_H_
#define KB_WORKBENCH_REPORT_BENCH_TABLE_H_

#include "workbench/report/bench_results.h"

#include <string>

namespace kb::report {

std::string renderBenchTable(const report::BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_BENCH_TABLE_H_
