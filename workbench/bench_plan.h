//===- workbench/bench_plan.h - Which benchmarks a build directory holds --===//
//
// `kernel-bench bench BUILD` times what `kernel-bench build` wrote:
// BUILD/bench/*.kbm (one per dispatch of the program), the standalone
// kernels' BUILD/standalone/<kernel>/bench/*.kbm, and the program itself
// (BUILD/program.kbm's entry function, the whole-program benchmark). Each
// module is parsed here — no device is touched — so a module that cannot
// be read (a newer schema, a truncated file) is an ERROR row with the
// loader's message before any worker starts.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_PLAN_H_
#define KB_WORKBENCH_BENCH_PLAN_H_

#include "common/status.h"

#include <string>
#include <vector>

namespace kb::workbench {

struct PlannedBenchmark {
  std::string displayName; // "saxpy_saxpy_1048576x1x1", "program main"
  std::string modulePath;
  std::string benchmark; // empty: the module's entry function
  /// Non-empty: the module could not be read; the row is an ERROR with this.
  std::string loadError;
};

/// The modules `bench` reads from |buildDir|, relative to it and sorted:
/// bench/*.kbm, standalone/*/bench/*.kbm, then program.kbm when present.
/// What `kernel-bench bundle` packs is exactly this list plus build.json.
std::vector<std::string> benchModuleFiles(const std::string &buildDir);

/// Benchmarks of |buildDir| whose display name matches |filter| (an
/// ECMAScript regex searched in the name; empty = all). NotFound when the
/// directory holds no benchmark module and no program; InvalidArgument for a
/// bad regex.
StatusOr<std::vector<PlannedBenchmark>>
planBenchmarks(const std::string &buildDir, const std::string &filter);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_PLAN_H_
