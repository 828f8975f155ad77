//===- workbench/bench/sweep_selection.h - Which sweep points to run ------===//
//
// A kernel with a `[bench] sweep` is built as one copy per point, each a
// benchmark of its own (workbench/project/problem_sizes.h), and build.json
// says which point each copy measures (`jobs[].declared.sweep`). `bench`
// gives every planned benchmark its point (bench.json keeps it, the reports
// draw against it), and `bench --sweep n=4096:1048576` keeps the points
// whose `n` is in range.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_SWEEP_SELECTION_H_
#define KB_WORKBENCH_BENCH_SWEEP_SELECTION_H_

#include "common/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kb::workbench {

struct PlannedBenchmark;

/// `--sweep NAME=LO:HI`: the points whose NAME is in [lo, hi].
struct SweepRange {
  std::string name;
  int64_t lo = 0, hi = 0;
};

/// Parses |spec|; InvalidArgument (a usage error) naming what was expected
/// for anything but `NAME=LO:HI` with integers LO <= HI.
StatusOr<SweepRange> parseSweepRange(const std::string &spec);

/// Gives each of |planned| from a standalone kernel the sweep point that
/// |buildDir|/build.json records for it. A build.json that cannot be read
/// leaves every point empty; |why| says why (for selectSweep's message).
void attachSweepPoints(const std::string &buildDir,
                       std::vector<PlannedBenchmark> &planned,
                       std::string &why);

/// Keeps the benchmarks of |planned| whose point gives |range|'s name a
/// value in range. InvalidArgument, naming the swept names (or saying there
/// are none, and |why|), when no benchmark sweeps that name.
Status selectSweep(const SweepRange &range,
                   std::vector<PlannedBenchmark> &planned,
                   const std::string &why);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_SWEEP_SELECTION_H_
