//===- workbench/build/job_runner.h - The jobs of a build on N threads ----===//
//
// Runs a BuildSession's plan through toolchains::KernelBuilder on
// session.jobs worker threads, telling the BuildObserver as jobs start,
// step and end. A failed job
// publishes nothing (its earlier outputs are removed too); `--strict` turns
// warnings into failures; once the InterruptForwarder has seen a signal no
// job starts and the stopped ones are recorded as interrupted.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_JOB_RUNNER_H_
#define KB_WORKBENCH_BUILD_JOB_RUNNER_H_

#include "workbench/build/build_report.h"
#include "workbench/build/build_session.h"
#include "workbench/support/interrupt_forwarder.h"

#include <vector>

namespace kb::workbench {

struct JobRunOptions {
  /// Warnings fail the job (`--strict`).
  bool strict = false;
  /// Every command line in the records (`--verbose`).
  bool verbose = false;
};

/// Runs every job of |session| and returns one record per plan entry, in
/// plan order (jobs an interrupt kept from starting included). Saves the
/// cache's file hashes for the next build.
std::vector<JobRecord> runJobs(BuildSession &session,
                               const JobRunOptions &options,
                               const InterruptForwarder &interrupt,
                               BuildObserver &observer);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_JOB_RUNNER_H_
