//===- workbench/bench_command.h - `kernel-bench bench` flags -------------===//
#ifndef KB_WORKBENCH_BENCH_COMMAND_H_
#define KB_WORKBENCH_BENCH_COMMAND_H_

#include "workbench/bench_input.h"
#include "workbench/bench_settings.h"

#include <string>

namespace kb::workbench {

struct BenchCommandFlags {
  std::string build = "kb-out"; // a build directory or a bundle (bundle.h)
  std::string outDir;           // default BUILD/results
  std::string filter;
  BenchSettings settings;
  double watchdogS = 0; // 0 = 4 x timeout + 60
  double budgetS = 0;   // 0 = unlimited
  /// --baseline OTHER_BUILD: each benchmark also times the same-named one
  /// of that build, in lockstep, and gets a paired verdict.
  std::string baseline;
  std::string threshold = "2%"; // δ of the paired verdicts
  ShardFlags shard;
};

/// `kernel-bench bench` with |flags|: the whole command, table and reports;
/// returns its exit code (docs/cli.md).
int runBench(const BenchCommandFlags &flags);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_COMMAND_H_
