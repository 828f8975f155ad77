//===- workbench/job_runner.h - The jobs of a build on N threads ----------===//
//
// Runs a BuildSession's plan through toolchains::KernelBuilder on
// session.jobs worker threads, with ninja-style progress. A failed job
// publishes nothing (its earlier outputs are removed too); `--strict` turns
// warnings into failures; once the InterruptForwarder has seen a signal no
// job starts and the stopped ones are recorded as interrupted.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_JOB_RUNNER_H_
#define KB_WORKBENCH_JOB_RUNNER_H_

#include "workbench/build_report.h"
#include "workbench/build_session.h"
#include "workbench/interrupt_forwarder.h"
#include "workbench/progress.h"

#include <vector>

namespace kb::workbench {

struct JobRunOptions {
  /// Warnings fail the job (`--strict`).
  bool strict = false;
  /// Every command line and diagnostic in the job blocks (`--verbose`).
  bool verbose = false;
};

/// Runs every job of |session| and returns one record per plan entry, in
/// plan order (jobs an interrupt kept from starting included). Saves the
/// cache's file hashes for the next build.
std::vector<JobRecord> runJobs(BuildSession &session,
                               const JobRunOptions &options,
                               const InterruptForwarder &interrupt,
                               Progress &progress);

} // namespace kb::workbench

#endif // KB_WORKBENCH_JOB_RUNNER_H_
