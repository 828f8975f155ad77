//===- workbench/build/build_engine.cpp - The build engine ----------------===//
//
// Opens a build session (build_session.h), runs one job per (kernel,
// target) on N worker threads through toolchains::KernelBuilder
// (job_runner.h), hands the successful kernels to the program step
// (program_step.h) and writes OUT_DIR/build.json (build_report.h).
//
//===----------------------------------------------------------------------===//
#include "workbench/build/build_engine.h"

#include "workbench/build/build_session.h"
#include "workbench/build/build_stamp.h"
#include "workbench/build/job_runner.h"
#include "workbench/build/program_step.h"
#include "workbench/project/workbench_toml.h"
#include "workbench/support/interrupt_forwarder.h"

#include "common/file_util.h"
#include "toolchains/file_hash_memo.h"
#include "toolchains/remote_tier.h"
#include "toolchains/tool_reaper.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

/// Forwards everything to the caller's observer and remembers whether a
/// warning was given: a build that warned leaves no stamp, so that the next
/// one warns again (build_stamp.h).
class WarningWatcher : public BuildObserver {
public:
  explicit WarningWatcher(BuildObserver &inner) : inner_(inner) {}
  void jobsPlanned(size_t count) override { inner_.jobsPlanned(count); }
  void jobStarted() override { inner_.jobStarted(); }
  void jobStep(const std::string &step) override { inner_.jobStep(step); }
  void jobFinished(const JobRecord &job, bool stopped) override {
    inner_.jobFinished(job, stopped);
  }
  void jobsFinished() override { inner_.jobsFinished(); }
  void warning(const std::string &message) override {
    warned_ = true;
    inner_.warning(message);
  }
  void note(const std::string &message) override { inner_.note(message); }
  bool warned() const { return warned_; }

private:
  BuildObserver &inner_;
  std::atomic<bool> warned_{false};
};

/// Runs the program step after the jobs, or records why it was skipped. A
/// skipped step must not leave an earlier build's modules behind for
/// `kernel-bench run` to run as if they were current. A step that ran and
/// failed leaves its error in |report.programError|.
void runProgramStep(BuildSession &session, BuildReport &report,
                    int interruptedBy) {
  const Project &project = *session.project;
  // Failed jobs do not skip the step: compileProgram skips what depends on
  // them (the program when a substituting kernel failed, each failed
  // standalone kernel), and the rest still builds.
  if (interruptedBy) {
    discardProgramOutputs(project, session.outputDir, *session.outputs);
    ProgramRecord &skipped = report.program.emplace();
    if (project.program)
      skipped.path = project.program->string();
    skipped.status = StepStatus::Skipped;
    skipped.reason = "the build was interrupted";
    return;
  }
  std::vector<const JobRecord *> succeeded;
  for (const JobRecord &job : report.jobs)
    succeeded.push_back(&job);
  ProgramStepOptions step;
  // The targets this build built: `--target` narrows the program too, so no
  // variant is generated for a target nobody asked for.
  step.targets =
      session.requested.empty() ? project.targets : session.requested;
  // ... and a target skipped for a missing toolchain is not built at all.
  auto skipped = [&](const Target &t) {
    return std::any_of(session.skipped.begin(), session.skipped.end(),
                       [&](const SkippedTarget &s) { return s.target == t; });
  };
  step.targets.erase(
      std::remove_if(step.targets.begin(), step.targets.end(), skipped),
      step.targets.end());
  if (std::any_of(step.targets.begin(), step.targets.end(),
                  [](const Target &t) { return t.isCuda(); }))
    if (StatusOr<toolchains::ToolIdentity> ptxas = session.tools->find("ptxas");
        ptxas.ok())
      step.ptxas = *ptxas;
  // The cache's memo when there is a cache (a no-op build then only stats);
  // --no-cache also compiles the program again.
  toolchains::FileHashMemo localHashes;
  toolchains::BuildCache *cache = session.cache.get();
  step.hashFile = [&](const std::string &path) {
    return cache ? cache->hashFile(path) : localHashes.hash(path);
  };
  step.reuse = cache != nullptr;
  step.outputs = session.outputs.get();
  const toolchains::BuildOptions hostOptions = toolOptions(session);
  step.buildHostReference = [&](const toolchains::HostReferenceSpec &spec,
                                const std::filesystem::path &out) {
    return toolchains::buildHostReference(*session.tools, cache, hostOptions,
                                          spec, out);
  };
  Status status = compileProgram(project, succeeded, session.outputDir, step,
                                 report.program.emplace());
  if (cache)
    cache->saveFileHashes().ignoreError();
  if (!status.ok())
    report.programError = status.message();
}

/// The report's header: the project and the options the build runs with.
BuildReport startReport(const BuildRequest &request,
                        const BuildSession &session) {
  BuildReport report;
  report.project = session.project;
  report.outputDir = session.outputDir;
  report.buildJson = session.outputDir / "build.json";
  report.options.jobs = session.jobs;
  report.options.requestedTargets = session.requested;
  report.options.strict = request.strict;
  report.options.timeoutSeconds = session.timeoutSeconds;
  report.options.kernelsOnly = request.kernelsOnly;
  report.options.cacheEnabled = session.cache != nullptr;
  report.options.cacheDir = session.cacheDir;
  return report;
}

/// build.json could not be written (a full disk): nothing may describe
/// outputs it does not record, so the program's modules go, and so does an
/// earlier build's build.json, which describes other outputs.
Status discardUnrecordedBuild(BuildSession &session, const BuildReport &report,
                              const Status &failed) {
  discardAnyProgramOutputs(session.outputDir, *session.outputs);
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(report.buildJson, ec)))
    fs::remove(report.buildJson, ec);
  session.outputs->save().ignoreError();
  return Status(failed.code(),
                failed.message() +
                    "; the build is not recorded, so its modules were "
                    "removed: free space and build again");
}

/// Writes build.json (atomically) and the manifest of what this build
/// wrote, for the next one's deletions.
Status writeRecord(BuildSession &session, BuildReport &report,
                   std::chrono::steady_clock::time_point wallStart) {
  if (toolchains::RemoteTier *remote =
          session.cache ? session.cache->remote() : nullptr) {
    report.options.remoteCacheUrl = remote->url();
    report.options.remoteCache = remote->stats();
  }
  report.wallSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - wallStart)
                           .count();
  // A build that would record what the last one recorded (the timings
  // aside) writes nothing: build.json keeps the last real build's record.
  // The document is made once, for the fingerprint and the file.
  const nlohmann::ordered_json record = toJson(report);
  std::string fingerprint = recordFingerprint(record);
  session.outputs->setFingerprint(fingerprint);
  if (fingerprint == session.outputs->previousFingerprint() &&
      session.outputs->unchangedSincePrevious(report.buildJson)) {
    report.upToDate = true;
    return session.outputs->save();
  }
  Status written = kb::writeFileAtomic(
      report.buildJson,
      // Paths were checked to be UTF-8 (build_session.cpp); tool output is
      // text whose stray bytes become U+FFFD rather than an exception.
      record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n");
  if (!written.ok())
    return discardUnrecordedBuild(session, report, written);
  session.outputs->wrote(report.buildJson);
  return session.outputs->save();
}

} // namespace

StatusOr<BuildReport> runBuild(const BuildRequest &request,
                               BuildObserver &caller) {
  WarningWatcher observer(caller);
  auto wallStart = std::chrono::steady_clock::now();
  const auto started = std::chrono::system_clock::now();
  // First, before any thread or tool: every tool this build starts carries
  // its marker, and the reaper, forked before the first tool (a build with
  // nothing to do starts no process), kills them if we are SIGKILLed.
  auto reaperFailed = [&observer](const std::string &why) {
    observer.warning(why + " (continuing: tools could outlive a SIGKILL of "
                           "this build)");
  };
  StatusOr<std::unique_ptr<toolchains::ToolReaper>> reaper =
      toolchains::ToolReaper::start(reaperFailed);
  if (!reaper.ok())
    reaperFailed(reaper.status().message());
  KB_ASSIGN_OR_RETURN(std::unique_ptr<BuildSession> opened,
                      openBuildSession(request, observer));
  BuildSession &session = *opened;
  BuildReport report = startReport(request, session);
  if (Status missing = skipUnavailableTargets(session, request.strict);
      !missing.ok()) {
    report.error = missing.message();
    writeRecord(session, report, wallStart).ignoreError();
    return missing;
  }
  report.skippedTargets = session.skipped;
  for (const SkippedTarget &s : session.skipped)
    observer.warning("skipping target " + s.target.toString() + ": " +
                     s.reason +
                     "\n  (the other targets still build; --strict makes "
                     "this an error)");

  // From here to the end a SIGINT/SIGTERM stops the tools, lets the running
  // jobs fail (outputs are published only by a job that completed), starts
  // no new job, skips the program step and still writes build.json.
  InterruptForwarder interrupt;
  observer.jobsPlanned(session.plan.size());
  report.jobs =
      runJobs(session, {request.strict, request.verbose}, interrupt, observer);
  report.interruptedBy = interrupt.signal();
  if (report.interruptedBy)
    report.error = "interrupted by " + signalName(report.interruptedBy) +
                   ": the tools were stopped, jobs that had not finished "
                   "published nothing";
  if (session.compileProgramStep)
    runProgramStep(session, report, report.interruptedBy);
  else
    discardAnyProgramOutputs(session.outputDir, *session.outputs);
  if (Status written = writeRecord(session, report, wallStart); !written.ok())
    report.recordError = written.message();
  else if (stampable(request))
    if (Status stamped = recordBuildStamp(session, report, observer.warned(),
                                          buildStampKey(request), started);
        !stamped.ok() && request.explain)
      observer.note("explain: " + stamped.message());
  return report;
}

StatusOr<UpToDateBuild> findUpToDateBuild(const BuildRequest &request) {
  const auto start = std::chrono::steady_clock::now();
  if (!stampable(request) || request.verbose)
    return failedPrecondition(
        "--no-cache and --verbose builds check everything");
  std::filesystem::path outputDir;
  if (request.outputDir.empty()) {
    // Where the outputs are is workbench.toml's to say; its errors are the
    // full build's to report.
    KB_ASSIGN_OR_RETURN(Project settings,
                        loadProjectSettings(request.projectDir));
    outputDir = outputDirFor(request, settings);
  } else {
    outputDir = outputDirFor(request, Project());
  }
  KB_ASSIGN_OR_RETURN(BuildSummaryFigures figures,
                      checkBuildStamp(outputDir, buildStampKey(request)));
  return UpToDateBuild{
      outputDir / "build.json", figures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count()};
}

} // namespace kb::workbench
