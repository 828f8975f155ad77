//===- common/benchmark_name.h - How a benchmark is named -----------------===//
//
// A benchmark of a dispatch whose executable has no kernel name is named
// `<executable>_<export>_<w0>x<w1>x<w2>`. A model's dispatches export one
// function named after their executable, and some programs name the export
// after the executable and a suffix, so names said a part twice:
// `main_dispatch_0_main_dispatch_0_512x256x1`, `matmul_matmul_tiled_...`.
// The stem says each part once; the compiler names benchmarks with it, and
// `compare` renames a base report's names of the earlier composition with
// it, so that reports from before and after still pair by id.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_BENCHMARK_NAME_H_
#define KB_COMMON_BENCHMARK_NAME_H_

#include <string>
#include <string_view>

namespace kb {

/// The part of a benchmark's name before its workload, from its executable
/// and its export's readable name (readableEntryName): the export alone
/// when it is the executable's name or starts with it and `_`
/// (`main_dispatch_0`, `matmul_tiled` of `matmul`),
/// the executable alone when it is a copy of the export's kernel named
/// `<export>-<what it measures>` (`copy-n4096` of `copy`), else
/// `<executable>_<export>` (`scale_bf16_scale_kernel1`).
std::string benchmarkStem(std::string_view executable,
                          std::string_view readableExport);

/// |name| as benchmarkStem names it today when an earlier kernel-bench
/// composed it as `<executable>_<export>_...` with a part said twice
/// (`main_dispatch_0_main_dispatch_0_512x256x1` ->
/// `main_dispatch_0_512x256x1`); otherwise |name| unchanged.
std::string currentBenchmarkName(std::string_view name,
                                 std::string_view executable,
                                 std::string_view readableExport);

} // namespace kb

#endif // KB_COMMON_BENCHMARK_NAME_H_
