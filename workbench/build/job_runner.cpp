//===- workbench/build/job_runner.cpp - The jobs of a build on N threads --===//
#include "workbench/build/job_runner.h"

#include "workbench/build/build_summary.h"

#include "common/paths.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::BuildJobResult;

namespace {

/// A failed job leaves nothing under OUT_DIR/kernels for its (kernel,
/// target): outputs of an earlier build are removed too, so nothing
/// downstream picks up a stale binary (make's .DELETE_ON_ERROR) -- but only
/// files a build provably wrote (output_manifest.h): never the user's.
void removeOutputs(OutputManifest &outputs, const fs::path &outDir,
                   const BuildJobResult &result) {
  fs::path dir = outDir / "kernels" / result.kernel;
  for (const char *ext : {".ptx", ".cubin", ".spv"})
    outputs.removeOwned(dir / (result.target.fileStem() + ext));
  for (const toolchains::OutputFile &o : result.outputs)
    outputs.removeOwned(o.path);
  std::error_code ec;
  fs::remove(dir, ec); // Only when empty.
}

Status interruptedStatus(const PlannedJob &job, const char *what,
                         const InterruptForwarder &interrupt) {
  return Status(StatusCode::Aborted, job.kernel->name + " for " +
                                         job.target.toString() + ": " + what +
                                         ": the build was interrupted by " +
                                         signalName(interrupt.signal()));
}

/// `--strict`: a successful job with warnings fails.
void failOnWarnings(BuildJobResult &result) {
  size_t warnings =
      std::count_if(result.diagnostics.begin(), result.diagnostics.end(),
                    [](const toolchains::Diagnostic &d) {
                      return isWarningOrWorse(d.severity);
                    });
  if (warnings)
    result.status = invalidArgument(std::to_string(warnings) + " warning" +
                                    (warnings == 1 ? "" : "s") +
                                    " treated as errors (--strict)");
}

/// State the worker threads share.
struct JobRun {
  BuildSession &session;
  const JobRunOptions &options;
  const InterruptForwarder &interrupt;
  BuildObserver &observer;
  toolchains::KernelBuilder &builder;
  std::vector<JobRecord> records;
  std::vector<char> started;
  std::atomic<size_t> next{0};
};

/// Builds plan entry |i| into its record and tells the observer.
void runJob(JobRun &run, size_t i) {
  const PlannedJob &job = run.session.plan[i];
  run.observer.jobStarted();
  JobRecord &record = run.records[i];
  record.kernel = job.kernel;
  record.spec = job.spec;
  // Steps name the source by absolute path; show it as the user sees it.
  const std::string absolute = job.spec->source.string();
  const std::string shown = displayPath(job.spec->source);
  try {
    record.result = run.builder.build(
        run.session.specs[i], job.target, run.session.outputDir,
        [&](const std::string &step) {
          std::string line = step;
          if (size_t at = line.find(absolute); at != std::string::npos)
            line.replace(at, absolute.size(), shown);
          run.observer.jobStep(line);
        });
  } catch (const std::exception &e) {
    // An exception escaping a worker thread would terminate the whole
    // build; make it this job's failure instead.
    record.result.kernel = job.kernel->name;
    record.result.target = job.target;
    record.result.status = internalError(
        job.kernel->name + " for " + job.target.toString() + ": " + e.what());
  }
  if (run.options.strict && record.result.status.ok())
    failOnWarnings(record.result);
  if (record.result.status.ok())
    for (const toolchains::OutputFile &o : record.result.outputs)
      run.session.outputs->wrote(o.path, o.sha256);
  if (!record.result.status.ok()) {
    removeOutputs(*run.session.outputs, run.session.outputDir, record.result);
    record.result.outputs.clear();
    record.result.resources.reset();
    // A tool that died of the Ctrl-C may be reaped before the forwarder has
    // taken the same signal; wait for it, so the job reads as stopped.
    for (const toolchains::ToolInvocation &c : record.result.commands)
      InterruptForwarder::signalBehindChildDeath(c.signal, c.timedOut);
    if (run.interrupt.signal()) {
      // Its tool was stopped by us; the failure block would be noise.
      record.result.status = interruptedStatus(job, "stopped", run.interrupt);
      run.observer.jobFinished(record, /*stopped=*/true);
      return;
    }
  }
  run.observer.jobFinished(record, /*stopped=*/false);
}

void worker(JobRun &run) {
  const size_t count = run.session.plan.size();
  for (size_t i = run.next++; i < count && !run.interrupt.signal();
       i = run.next++) {
    run.started[i] = 1;
    runJob(run, i);
  }
}

/// The jobs an interrupt kept from starting, recorded as such.
void recordNotStarted(JobRun &run) {
  for (size_t i = 0; i < run.records.size(); ++i) {
    if (run.started[i])
      continue;
    const PlannedJob &job = run.session.plan[i];
    JobRecord &record = run.records[i];
    record.kernel = job.kernel;
    record.spec = job.spec;
    record.result.kernel = job.kernel->name;
    record.result.target = job.target;
    record.result.status = interruptedStatus(job, "not started", run.interrupt);
  }
}

} // namespace

std::vector<JobRecord> runJobs(BuildSession &session,
                               const JobRunOptions &options,
                               const InterruptForwarder &interrupt,
                               BuildObserver &observer) {
  toolchains::BuildOptions buildOptions = toolOptions(session);
  buildOptions.verbose = options.verbose;
  OutputManifest &outputs = *session.outputs;
  buildOptions.removeStaleOutput = [&outputs](const fs::path &file) {
    outputs.removeOwned(file);
  };
  toolchains::KernelBuilder builder(*session.tools, session.cache.get(),
                                    buildOptions);

  JobRun run{session, options, interrupt, observer, builder};
  run.records.resize(session.plan.size());
  run.started.assign(session.plan.size(), 0);
  {
    std::vector<std::thread> threads;
    unsigned n = std::min<unsigned>(session.jobs,
                                    std::max<size_t>(1, session.plan.size()));
    for (unsigned t = 0; t < n; ++t)
      threads.emplace_back([&run] { worker(run); });
    for (std::thread &t : threads)
      t.join();
  }
  observer.jobsFinished();
  // The dependency and output hashes this build computed, for the next one.
  if (session.cache)
    session.cache->saveFileHashes().ignoreError();
  if (interrupt.signal())
    recordNotStarted(run);
  return std::move(run.records);
}

} // namespace kb::workbench
