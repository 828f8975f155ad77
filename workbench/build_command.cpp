//===- workbench/build_command.cpp - `kernel-bench build` -----------------===//
//
// Loads a project (build_session.h), runs one job per (kernel, target) on N
// worker threads through toolchains::KernelBuilder (job_runner.h), writes
// OUT_DIR/build.json (build_report.h) and, when the project names a program,
// hands the successful kernels to the program step (program_step.h); ends
// with the summary line (build_summary.h).
//
// Exit codes: 0 every job succeeded (a target whose toolchain is missing is
// skipped with a warning); 1 a project, kernel or toolchain error (a missing
// toolchain under --strict, for a --target, or for every target: the message
// says which targets to drop);
// 2 a usage error; 128 + N interrupted by signal N (130 for Ctrl-C).
//
//===----------------------------------------------------------------------===//
#include "workbench/build_report.h"
#include "workbench/build_session.h"
#include "workbench/build_summary.h"
#include "workbench/command.h"
#include "workbench/duration_check.h"
#include "workbench/interrupt_forwarder.h"
#include "workbench/job_runner.h"
#include "workbench/program_step.h"
#include "workbench/progress.h"

#include "common/paths.h"
#include "toolchains/file_hash_memo.h"
#include "common/file_util.h"
#include "toolchains/remote_tier.h"
#include "toolchains/tool_reaper.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

void printError(const std::string &message) {
  std::fprintf(stderr, "kernel-bench: error: %s\n", message.c_str());
}

/// Runs the program step after the jobs, or records why it was skipped. A
/// skipped step must not leave an earlier build's modules behind for
/// `kernel-bench run` to run as if they were current. Returns false when the
/// step ran and failed (its error is printed).
bool runProgramStep(BuildSession &session, BuildReport &report,
                    int interruptedBy) {
  const Project &project = session.project;
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
    return true;
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
  Status status = compileProgram(project, succeeded, session.outputDir, step,
                                 report.program.emplace());
  if (cache)
    cache->saveFileHashes().ignoreError();
  if (status.ok())
    return true;
  printError(status.message());
  return false;
}

} // namespace

int runBuild(const BuildFlags &flags) {
  auto wallStart = std::chrono::steady_clock::now();
  // First, before any thread or tool: every tool this build starts carries
  // its marker, and the reaper kills them if this process is SIGKILLed.
  StatusOr<std::unique_ptr<toolchains::ToolReaper>> reaper =
      toolchains::ToolReaper::start();
  if (!reaper.ok())
    printError(reaper.status().message() +
               " (continuing: tools could outlive a SIGKILL of this build)");
  StatusOr<std::vector<Target>> requested =
      parseRequestedTargets(flags.targets);
  if (!requested.ok()) {
    printError(requested.status().message());
    return kExitUsage;
  }
  StatusOr<std::unique_ptr<BuildSession>> opened =
      openBuildSession(flags, std::move(*requested));
  if (!opened.ok()) {
    printError(opened.status().message());
    return kExitUserError;
  }
  BuildSession &session = **opened;

  BuildReport report;
  report.project = &session.project;
  report.outputDir = session.outputDir;
  report.options.jobs = session.jobs;
  report.options.requestedTargets = session.requested;
  report.options.strict = flags.strict;
  report.options.timeoutSeconds = session.timeoutSeconds;
  report.options.kernelsOnly = flags.kernelsOnly;
  report.options.cacheEnabled = session.cache != nullptr;
  report.options.cacheDir = session.cacheDir;
  const fs::path reportPath = session.outputDir / "build.json";
  auto writeReport = [&]() -> Status {
    if (toolchains::RemoteTier *remote =
            session.cache ? session.cache->remote() : nullptr) {
      report.options.remoteCacheUrl = remote->url();
      report.options.remoteCache = remote->stats();
    }
    report.wallSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - wallStart)
                             .count();
    KB_RETURN_IF_ERROR(kb::writeFileAtomic(
        reportPath,
        // Paths were checked to be UTF-8 (build_session.cpp); tool output is
        // text whose stray bytes become U+FFFD rather than an exception.
        toJson(report).dump(2, ' ', false,
                            nlohmann::json::error_handler_t::replace) +
            "\n"));
    // The manifest of what this build wrote, for the next one's deletions.
    session.outputs->wrote(reportPath);
    return session.outputs->save();
  };

  if (Status missing = skipUnavailableTargets(session, flags.strict);
      !missing.ok()) {
    printError(missing.message());
    report.error = missing.message();
    writeReport().ignoreError();
    return kExitUserError;
  }
  report.skippedTargets = session.skipped;
  for (const SkippedTarget &s : session.skipped)
    std::fprintf(stderr,
                 "kernel-bench: warning: skipping target %s: %s\n"
                 "  (the other targets still build; --strict makes this an "
                 "error)\n",
                 s.target.toString().c_str(), s.reason.c_str());

  // From here to the end a SIGINT/SIGTERM stops the tools, lets the running
  // jobs fail (outputs are published only by a job that completed), starts
  // no new job, skips the program step and still writes build.json.
  InterruptForwarder interrupt;
  ProgressOptions terminal = detectTerminal();
  Progress progress(stdout, terminal, session.plan.size());
  report.jobs =
      runJobs(session, {flags.strict, flags.verbose}, interrupt, progress);
  const int interruptedBy = interrupt.signal();
  if (interruptedBy)
    report.error = "interrupted by " + signalName(interruptedBy) +
                   ": the tools were stopped, jobs that had not finished "
                   "published nothing";

  BuildTotals totals = computeTotals(report);
  int exitCode = totals.failed ? kExitUserError : kExitOk;
  bool programFailed = false;
  if (session.compileProgramStep &&
      !runProgramStep(session, report, interruptedBy)) {
    exitCode = kExitUserError;
    programFailed = true;
  }

  if (Status written = writeReport(); !written.ok()) {
    // No "built ..." line after this: the build's record is missing.
    printError(written.message());
    return interruptedBy ? 128 + interruptedBy : kExitUserError;
  }
  if (interruptedBy) {
    printError("interrupted by " + signalName(interruptedBy) + ": " +
               std::to_string(totals.succeeded) + " of " +
               std::to_string(totals.jobs) + " jobs finished; see " +
               displayPath(reportPath));
    return 128 + interruptedBy;
  }
  progress.printLine(
      buildSummaryLine(report, totals, programFailed, terminal.color));
  return exitCode;
}

CommandRegistration addBuildCommand(CLI::App &root) {
  auto flags = std::make_shared<BuildFlags>();
  CLI::App *app = root.add_subcommand(
      "build", "Compile and validate every kernel of a project for its "
               "targets; write OUT_DIR/build.json");
  app->add_option("PROJECT_DIR", flags->projectDir,
                  "Directory holding workbench.toml (default: .)")
      ->type_name("DIR");
  app->add_option("-o,--output", flags->outputDir,
                  "Output directory (default: [project] output_dir, else "
                  "PROJECT_DIR/kb-out)")
      ->type_name("DIR");
  app->add_option("-j,--jobs", flags->jobs,
                  "Parallel jobs (default: [build] jobs, else all cores)")
      ->type_name("N")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--target", flags->targets,
                  "Build only this target (cuda:sm_XX, vulkan:X.Y); repeatable")
      ->type_name("TARGET");
  app->add_flag("--no-cache", flags->noCache,
                "Neither read nor write the build cache");
  app->add_option("--cache-dir", flags->cacheDir,
                  "Cache directory (default: [build] cache_dir, else "
                  "$KB_CACHE_DIR, else $XDG_CACHE_HOME/kernel-bench)")
      ->type_name("DIR");
  // Only a kernel-bench with the HTTP client offers it (not the
  // runtime-only build).
  if (toolchains::remoteTierAvailable()) {
    app->add_option("--remote-cache", flags->remoteCache,
                    "Shared cache server, http(s)://HOST[:PORT][/PATH] "
                    "(default: $KB_REMOTE_CACHE, else [build] remote_cache); "
                    "credentials only from the environment or netrc")
        ->type_name("URL")
        ->check([](const std::string &url) {
          Status bad = toolchains::checkRemoteCacheUrl(url);
          return bad.ok() ? std::string() : bad.message();
        });
    app->add_flag("--no-remote-cache", flags->noRemoteCache,
                  "Use only the local cache");
  }
  app->add_flag("--strict", flags->strict,
                "Treat warnings (compiler, ptxas spills, glslc) as errors");
  app->add_flag("-v,--verbose", flags->verbose,
                "Print every command line and the full diagnostics");
  app->add_option("--timeout", flags->timeoutSeconds,
                  "Seconds before a tool is killed (default: [build] "
                  "timeout, else 120)")
      ->type_name("SECONDS")
      ->check(checkSecondsText);
  app->add_flag("--no-wait", flags->noWait,
                "Fail at once when another build is using the output "
                "directory (default: wait for it)");
  app->add_flag("--kernels-only", flags->kernelsOnly,
                "Build the kernels but not the project's program");
  return {app, [flags] { return runBuild(*flags); }};
}

} // namespace kb::workbench
