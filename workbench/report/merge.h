//===- workbench/report/merge.h - One report from the shards' reports -----===//
//
// `kernel-bench merge` without the command line: the reports of the shards
// of one run (bench --shard, report.shard) become one report, as if one
// runner had run every benchmark. Refused (FailedPrecondition, exit 4):
// reports of different builds (build.json sha256) or device models unless
// allowed; shards planned differently; a benchmark in two reports
// (overlapping shards); benchmarks of the plan in no report (a missing or
// interrupted shard) unless allowed, and then listed in the merged report's
// warnings. Every refusal lists the benchmarks concerned.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_MERGE_H_
#define KB_WORKBENCH_REPORT_MERGE_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <string>
#include <vector>

namespace kb::report {

struct MergeOptions {
  bool allowDifferentBuilds = false;
  bool allowDifferentDevices = false;
  bool allowMissing = false;
};

/// One input: the report and the file it came from (for messages).
struct MergeInput {
  std::string source;
  BenchReport report;
};

struct MergeResult {
  BenchReport merged; // shard = none; derived figures recomputed
  /// "saxpy_1024 (shard 2/3)" per benchmark of the plan that no report has
  /// (only with allowMissing; also in merged.environment.warnings).
  std::vector<std::string> missing;
};

StatusOr<MergeResult> mergeReports(std::vector<MergeInput> inputs,
                                   const MergeOptions &options);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_MERGE_H_
