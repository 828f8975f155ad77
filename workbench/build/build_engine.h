//===- workbench/build/build_engine.h - The build engine ------------------===//
//
// `kernel-bench build` as a function: a BuildRequest in, the build's record
// (build_report.h, what build.json holds) out. The command prints what the
// observer is told and the summary; `tune` builds its configurations
// through the same call and reads the record in memory.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_ENGINE_H_
#define KB_WORKBENCH_BUILD_BUILD_ENGINE_H_

#include "workbench/build/build_report.h"
#include "workbench/build/build_request.h"
#include "workbench/build/build_summary.h"

#include "common/status.h"

#include <filesystem>

namespace kb::workbench {

/// Builds |request|: every job, then the program step, then build.json.
/// An error when no job could run: the project or the output directory
/// could not be opened, or a toolchain is missing where that is an error
/// (build.json then records why). Otherwise the report, whatever the jobs
/// did: failed jobs, a failed program step (|programError|), an interrupt
/// (|interruptedBy|), or a build.json that could not be written
/// (|recordError|).
StatusOr<BuildReport> runBuild(const BuildRequest &request,
                               BuildObserver &observer);

/// A build with nothing to do, decided from stat() alone (build_stamp.h).
struct UpToDateBuild {
  std::filesystem::path buildJson;
  BuildSummaryFigures figures;
  double wallSeconds = 0;
};

/// The up-to-date build |request| would be, when its output directory's
/// stamp vouches for it; otherwise why only runBuild can tell (any doubt,
/// or a request that is never decided so: see stampable()).
StatusOr<UpToDateBuild> findUpToDateBuild(const BuildRequest &request);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_ENGINE_H_
