//===- workbench/bench/bench_plan.h - Which benchmarks a build directory --===//
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
#ifndef KB_WORKBENCH_BENCH_BENCH_PLAN_H_
#define KB_WORKBENCH_BENCH_BENCH_PLAN_H_

#include "common/status.h"
#include "runtime/bench/declared.h"
#include "workbench/bench/sweep_selection.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct PlannedBenchmark {
  std::string displayName; // "saxpy_1048576x1x1", "program main"
  std::string modulePath;
  std::string benchmark; // empty: the module's entry function
  /// Non-empty: the module could not be read; the row is an ERROR with this.
  std::string loadError;
  /// The standalone kernel whose program holds it (BUILD/standalone/KERNEL);
  /// empty for the project's program.
  std::string kernel;
  /// Its point when the kernel is a copy of a swept one (build.json's
  /// `jobs[].declared.sweep`); empty otherwise.
  bench::SweepPoint sweep;
};

/// Which of a build's benchmarks to run.
struct BenchSelection {
  /// An ECMAScript regex searched in the display name; empty: all.
  std::string filter;
  /// Non-empty: only these standalone kernels' benchmarks (`tune` runs the
  /// configurations it built this way).
  std::vector<std::string> kernels;
  /// The benchmarks of single dispatches only, not the whole program
  /// (`bench --sanitize`: `run --sanitize` checks the program).
  bool dispatchesOnly = false;
  /// `--sweep NAME=LO:HI`: only the sweep points whose NAME is in range.
  std::optional<SweepRange> sweep;
};

/// The modules `bench` reads from |buildDir|, relative to it and sorted:
/// bench/*.kbm, standalone/*/bench/*.kbm, then program.kbm when present.
/// What `kernel-bench bundle` packs is exactly this list plus build.json.
std::vector<std::string> benchModuleFiles(const std::string &buildDir);

/// The benchmarks of |buildDir| that |select| picks, each with its sweep
/// point. NotFound when the directory holds no benchmark module and no
/// program; InvalidArgument for a bad regex or a --sweep on a name no
/// benchmark sweeps.
StatusOr<std::vector<PlannedBenchmark>>
planBenchmarks(const std::string &buildDir, const BenchSelection &select);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_PLAN_H_
