//===- workbench/tune_bench.h - One `bench` run for `tune` ----------------===//
//
// The one place tune sets bench's measurement flags (bench_settings.h):
// hot timings, the quick rule, one seeded input set.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_BENCH_H_
#define KB_WORKBENCH_TUNE_BENCH_H_

#include <cstddef>
#include <string>

namespace kb::workbench {

struct TuneBenchRequest {
  std::string build;  // the build directory
  std::string outDir; // where bench.json goes
  std::string filter; // the benchmarks (a regex)
  std::string device; // "vulkan:0"
  size_t minSamples = 2;
  double watchdogS = 0; // 0: bench's default
};

/// `kernel-bench bench` of |request|, hot timings only, the quick stopping
/// rule with |minSamples|, one seeded input set (plus the zero and large
/// ones); returns bench's exit code.
int runTuneBench(const TuneBenchRequest &request);

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_BENCH_H_
