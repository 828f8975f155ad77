//===- workbench/report/reference_anchor.h - Drift anchors for compare ----===//
//
// Two bench runs of one machine can differ as wholes: another job on a
// shared CPU (lavapipe), a GPU clock held low for a run, move every median
// of a run alike, by far more than the spread of its samples. Every
// benchmark times its candidate interleaved with the compiler's reference
// kernel of the same dispatch, in the same run. When that reference is the
// same object in both reports, it did the same work in both runs: its ratio
// new / base is the drift between them, measured beside the candidate. That
// reference row is the benchmark's anchor (compare.h, "anchored verdicts").
//
// A reference row anchors its benchmark's rows of the same timing mode when,
// in NEW and in every base report that has it, it is timed, its object's
// sha256 (bench.json's object_sha256) is known and the same, and so are its
// target and the benchmark's executable, export and workload. A benchmark
// without a handwritten candidate (its generated kernel timed alone) has
// nothing to anchor.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_REFERENCE_ANCHOR_H_
#define KB_WORKBENCH_REPORT_REFERENCE_ANCHOR_H_

#include "workbench/report/bench_results.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::report {

struct ReferenceAnchor {
  std::string id; // the reference row: "saxpy/reference/cold"
  /// NEW's GPU times, sorted.
  std::vector<double> fresh;
  /// The base's GPU times pooled over its reports, each report's divided
  /// by its own median (so runs that drifted as wholes pool without
  /// widening the spread; with one report a scale that every ratio of
  /// ratios cancels), sorted. A row corrected by this anchor pools its base
  /// samples the same way (baseRunMedians).
  std::vector<double> base;
  /// The median of each base report's row (by report index); none where
  /// a report does not have it.
  std::vector<std::optional<double>> baseRunMedians;
  /// The median of the base's GPU times pooled as they are: with NEW's,
  /// the drift.
  double baseMedianNs = 0;
  /// The anchor's timings as sampled, in NEW and in each base report (by
  /// report index; null where a report does not have it): a row of the
  /// same benchmark and mode was sampled round by round with them, so the
  /// two pair sample for sample (compare.h, "paired anchoring").
  const Timing *freshTiming = nullptr;
  std::vector<const Timing *> baseTimings;
};

/// The anchors of |candidate| against |bases|, by "benchmark/mode" (see
/// anchorKey).
std::map<std::string, ReferenceAnchor>
findReferenceAnchors(const std::vector<BenchReport> &bases,
                     const BenchReport &candidate);

/// "saxpy/cold": the key of a benchmark's anchor for one timing mode.
std::string anchorKey(const Benchmark &benchmark, TimingMode mode);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_REFERENCE_ANCHOR_H_
