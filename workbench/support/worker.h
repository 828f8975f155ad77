//===- workbench/support/worker.h - Device work in a child process with a -===//
//
// `kernel-bench bench` and `kernel-bench run` never touch a device in their
// own process: a kernel that faults, hangs or crashes the driver must become
// an error message, not a dead or stuck `kernel-bench`. They re-execute
// themselves (/proc/self/exe) with the hidden `__worker` subcommand:
//
//  * through the one process runner (common/process.h): the worker leads
//    its own process group, and the watchdog (the runner's timeout) kills the
//    whole group;
//  * the worker asks the kernel to SIGKILL it when its parent dies
//    (PR_SET_PDEATHSIG, re-checked against KB_WORKER_PARENT for the race
//    where the parent died first), so even a SIGKILLed `kernel-bench` leaves
//    no worker behind;
//  * results travel on the worker's stdout; its stderr carries diagnostics
//    and "kb-worker:" protocol lines (what it is running now, sampling
//    progress), read live by the parent;
//  * stdout is line-buffered in the worker, so nothing it printed before
//    dying is lost even when the parent's stdout is a file.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_WORKER_H_
#define KB_WORKBENCH_SUPPORT_WORKER_H_

#include "common/status.h"
#include "common/process.h"

#include <functional>
#include <string>
#include <vector>

namespace kb::workbench {

/// Prefix of the worker's protocol lines on stderr.
constexpr const char *kWorkerLinePrefix = "kb-worker: ";

struct WorkerOptions {
  /// Arguments after `kernel-bench __worker`.
  std::vector<std::string> args;
  /// A program that runs the worker as its command, and its arguments
  /// before the command (compute-sanitizer and its options); empty: none.
  std::vector<std::string> wrapper;
  /// Watchdog: the worker's process group is killed after this long.
  double timeoutS = 0;
  /// Each protocol line (without the prefix) as it arrives.
  std::function<void(const std::string &)> onMessage;
  /// Each chunk of the worker's stdout as it arrives (optional relay).
  std::function<void(std::string_view)> onStdout;
  /// Each diagnostic line of the worker's stderr (optional relay).
  std::function<void(const std::string &)> onDiagnostic;
};

struct WorkerRun {
  kb::ProcessResult process;
  /// The last "stage ..." the worker announced before it ended: what it was
  /// doing when it died (module, function, dispatches).
  std::string lastStage;
  /// stderr without the protocol lines.
  std::string diagnostics;
  /// "killed by signal 11 (Segmentation fault)", "did not finish within
  /// 5 s (watchdog killed it)"; empty when it exited normally.
  std::string death() const;
};

/// Starts a worker and waits for it (or its watchdog). A worker killed by
/// SIGINT, SIGTERM or SIGHUP returns once an InterruptForwarder alive here
/// has taken the same signal (InterruptForwarder::signalBehindChildDeath),
/// so the caller sees our interrupt, not a failed worker.
StatusOr<WorkerRun> runWorker(const WorkerOptions &options);

// ---- In the worker process ----

/// First thing a worker does: die with the parent, line-buffer stdout.
void becomeWorker();
/// Announces what the worker does next ("stage <text>"); the parent names
/// it if the worker dies.
void announceStage(const std::string &text);
/// Any other protocol line.
void announce(const std::string &line);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_WORKER_H_
