//===- workbench/bench/bench_input.h - What one `bench` run measures ------===//
//
// `kernel-bench bench BUILD` where BUILD is a build directory or a bundle
// (bundle.h), narrowed by --filter and then to this runner's shard
// (shard.h). Everything a run needs before the first worker starts; the
// bundle's private directory lives as long as the BenchInput.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_INPUT_H_
#define KB_WORKBENCH_BENCH_BENCH_INPUT_H_

#include "common/status.h"
#include "workbench/bench/bench_plan.h"
#include "workbench/bench/bundle.h"
#include "workbench/report/bench_results.h"
#include "workbench/bench/shard.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct ShardFlags {
  std::string shard;             // --shard I/N
  std::optional<uint32_t> count; // --shard-count N
  std::string balanceReport;     // --shard-balance PREV.json
};

/// A build as `bench` reads it: a build directory, or a bundle checked and
/// extracted into a private directory that lives as long as this does.
struct OpenedBuild {
  std::optional<OpenedBundle> bundle; // the build was a bundle file
  std::string buildDir;               // where build.json and the modules are
};

/// Opens |build|: a regular file is a bundle (openBundle), anything else a
/// build directory (checked later by planBenchmarks). FailedPrecondition for
/// a bundle that cannot be used (truncated, tampered, traversal), naming
/// what is wrong: a failure (exit 1), not a usage error.
StatusOr<OpenedBuild> openBuild(const std::string &build);

struct BenchInput {
  std::optional<OpenedBundle> bundle;    // BUILD was a bundle file
  std::string buildDir;                  // where build.json and the modules are
  std::vector<PlannedBenchmark> planned; // this shard's share, in run order
  size_t plannedInAllShards = 0;
  std::optional<report::ShardInfo> shard;

  /// Module paths in |run| as the bundle names them ("B.tar:bench/x.kbm"):
  /// the private directory is gone once the run ends.
  void nameModulesByBundle(report::BenchReport &run) const;
  /// "shard 1/3 (Slurm job array: ...): 4 of 11 benchmarks, balanced by
  /// count"; "" when not sharded.
  std::string shardLine() const;
};

/// Where a run of |build| writes its reports without -o: BUILD/results for
/// a directory; next to a bundle (a regular file), NAME-results for
/// NAME.tar. Known before anything runs, so the command can check it.
std::filesystem::path defaultBenchOutputDir(const std::string &build);

/// Opens BUILD (a directory or a bundle), plans its benchmarks and picks
/// this runner's shard. Status codes say what the command exits with:
/// InvalidArgument a usage error (bad regex, bad shard flag or environment:
/// exit 2); DataLoss the --shard-balance report cannot be read, or
/// BUILD/build.json is a FIFO, a device, a directory or over its cap (exit 4);
/// anything else (no build, a corrupt bundle) exit 1.
StatusOr<BenchInput> openBenchInput(const std::string &build,
                                    const BenchSelection &select,
                                    const ShardFlags &shardFlags,
                                    const EnvLookup &env);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_INPUT_H_
