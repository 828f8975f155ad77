//===- workbench/build/build_summary.h - What a build prints --------------===//
//
// The terminal half of a build's report (build_report.h writes build.json):
// the block printed when a job ends and the summary line a build ends with.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_SUMMARY_H_
#define KB_WORKBENCH_BUILD_BUILD_SUMMARY_H_

#include "workbench/build/build_report.h"

#include "toolchains/diagnostics.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace kb::workbench {

/// Warnings, errors and fatal errors: what `--strict` fails on and what a
/// quiet successful job still prints.
bool isWarningOrWorse(toolchains::Severity severity);

/// The block printed when a job ends: nothing for a quiet success, the
/// warnings of a success, or everything about a failure (diagnostics, the
/// tool's own output, then one line that says what failed and what to do).
std::string jobBlock(const JobRecord &job, bool verbose, bool color);

/// What the line of a build whose jobs all succeeded says, in numbers: the
/// build stamp keeps them, so a no-op that only stats prints the same line.
struct BuildSummaryFigures {
  size_t kernels = 0;
  size_t targets = 0;
  size_t jobs = 0;
  size_t cached = 0;
  /// Of |cached|, read from the remote cache; none when no remote cache
  /// was configured (every hit was local).
  std::optional<size_t> remoteCached;
  size_t skippedTargets = 0;
  /// What the program step produced: nothing to report (none, or it
  /// failed), program.kbm, or the standalone kernels' programs.
  enum class Program { None, Module, Standalone };
  Program program = Program::None;
  bool programCached = false;
  size_t substitutions = 0;
  size_t tunedVariants = 0;
  size_t benchmarks = 0;
};
BuildSummaryFigures summaryFigures(const BuildReport &report,
                                   const BuildTotals &totals,
                                   bool programFailed);

/// "built 7 kernels × 2 targets: 14 jobs, 14 cached, 0.02 s; program.kbm,
/// 8 substitutions, 12 benchmarks; kb-out/build.json"; |upToDate| adds that
/// build.json was kept.
std::string successSummaryLine(const BuildSummaryFigures &figures,
                               double wallSeconds,
                               const std::filesystem::path &buildJson,
                               bool upToDate);

/// The line a build that was not interrupted ends with: the job totals, the
/// program step's outputs (or that it failed) and where build.json is.
std::string buildSummaryLine(const BuildReport &report,
                             const BuildTotals &totals, bool programFailed,
                             bool color);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_SUMMARY_H_
