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

#include <string>

namespace kb::workbench {

/// Warnings, errors and fatal errors: what `--strict` fails on and what a
/// quiet successful job still prints.
bool isWarningOrWorse(toolchains::Severity severity);

/// The block printed when a job ends: nothing for a quiet success, the
/// warnings of a success, or everything about a failure (diagnostics, the
/// tool's own output, then one line that says what failed and what to do).
std::string jobBlock(const JobRecord &job, bool verbose, bool color);

/// The line a build that was not interrupted ends with: the job totals, the
/// program step's outputs (or that it failed) and where build.json is.
std::string buildSummaryLine(const BuildReport &report,
                             const BuildTotals &totals, bool programFailed,
                             bool color);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_SUMMARY_H_
