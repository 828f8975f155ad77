//===- workbench/tune/tune_bench.h - How tune measures a batch ------------===//
//
// The one place tune sets bench's measurement settings (bench_settings.h):
// hot timings, the quick rule, one seeded input set.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_BENCH_H_
#define KB_WORKBENCH_TUNE_TUNE_BENCH_H_

#include "workbench/bench/bench_engine.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kb::workbench {

/// Seconds of sampling per configuration: the limit the quick settings had
/// before `bench --quick` took longer to reach its 10 samples; tune measures
/// many configurations and ranks them, it does not gate on one.
inline constexpr double kTuneSampleTimeoutS = 1;

/// The bench request of one batch: the standalone |kernels| of the build in
/// |buildDir| on |device| ("vulkan:0"), hot timings only, the quick stopping
/// rule with |minSamples| within kTuneSampleTimeoutS, one seeded input set
/// (plus the zero and large ones); |watchdogS| 0 is bench's default.
BenchRequest tuneBenchRequest(const std::string &buildDir,
                              std::vector<std::string> kernels,
                              const std::string &device, size_t minSamples,
                              double watchdogS);

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_BENCH_H_
