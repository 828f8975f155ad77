//===- workbench/cli/build_command.cpp - `kernel-bench build` -------------===//
//
// Flags -> BuildRequest -> the build engine (build/build_engine.h), its
// progress on the terminal (ninja-style), the summary line, the exit code:
// 0 every job succeeded (a target whose toolchain is missing is skipped
// with a warning); 1 a project, kernel or toolchain error (a missing
// toolchain under --strict, for a --target, or for every target: the
// message says which targets to drop); 2 a usage error (also credentials
// in a remote-cache URL from any source); 128 + N
// interrupted by signal N (130 for Ctrl-C).
//
//===----------------------------------------------------------------------===//
#include "workbench/build/build_engine.h"
#include "workbench/build/build_printer.h"
#include "workbench/build/build_summary.h"
#include "workbench/cli/command.h"
#include "workbench/support/duration_check.h"
#include "workbench/support/interrupt_forwarder.h"
#include "workbench/support/progress.h"

#include "common/byte_size.h"
#include "common/paths.h"
#include "toolchains/remote_tier.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

/// The command line, before its targets are parsed.
struct BuildFlags {
  BuildRequest request;
  std::vector<std::string> targets;
};

void printError(const std::string &message) {
  std::fprintf(stderr, "kernel-bench build: error: %s\n", message.c_str());
}

/// The `--target` flags as targets, without duplicates; an unparsable one
/// is a usage error naming it.
StatusOr<std::vector<Target>>
parseTargets(const std::vector<std::string> &texts) {
  std::vector<Target> targets;
  for (const std::string &text : texts) {
    StatusOr<Target> target = Target::parse(text);
    if (!target.ok())
      return invalidArgument("--target " + text + ": " +
                             target.status().message());
    if (std::find(targets.begin(), targets.end(), *target) == targets.end())
      targets.push_back(*target);
  }
  return targets;
}

int runBuildCommand(const BuildFlags &flags) {
  BuildRequest request = flags.request;
  StatusOr<std::vector<Target>> targets = parseTargets(flags.targets);
  if (!targets.ok()) {
    printError(targets.status().message());
    return kExitUsage;
  }
  request.targets = std::move(*targets);
  PrintingBuildObserver observer(stdout, stderr, detectTerminal(),
                                 request.verbose);
  // Ninja's no-op: stat() says nothing changed, so nothing is loaded,
  // opened or started.
  StatusOr<UpToDateBuild> upToDate = findUpToDateBuild(request);
  if (upToDate.ok()) {
    observer.printLine(successSummaryLine(
        upToDate->figures, upToDate->wallSeconds, upToDate->buildJson, true));
    return kExitOk;
  }
  if (request.explain)
    observer.note("explain: not decided from stat() alone: " +
                  upToDate.status().message());
  StatusOr<BuildReport> built = runBuild(request, observer);
  if (!built.ok()) {
    printError(built.status().message());
    return built.status().code() == StatusCode::PermissionDenied
               ? kExitUsage
               : kExitUserError;
  }
  const BuildReport &report = *built;
  if (!report.programError.empty())
    printError(report.programError);
  const int signal = report.interruptedBy;
  if (!report.recordError.empty()) {
    // No "built ..." line after this: the build's record is missing.
    printError(report.recordError);
    return signal ? kExitInterruptedBase + signal : kExitUserError;
  }
  BuildTotals totals = computeTotals(report);
  if (signal) {
    printError("interrupted by " + signalName(signal) + ": " +
               std::to_string(totals.succeeded) + " of " +
               std::to_string(totals.jobs) + " jobs finished; see " +
               displayPath(report.buildJson));
    return kExitInterruptedBase + signal;
  }
  const bool programFailed = !report.programError.empty();
  const std::vector<BrokenKernel> &broken = report.project->brokenKernels;
  for (const BrokenKernel &b : broken)
    printError(b.error + " (this kernel was not built; the others were)");
  observer.printLine(buildSummaryLine(report, totals, programFailed,
                                      observer.terminal().color));
  return totals.failed || programFailed || !broken.empty() ? kExitUserError
                                                           : kExitOk;
}

} // namespace

CommandRegistration addBuildCommand(CLI::App &root) {
  auto flags = std::make_shared<BuildFlags>();
  CLI::App *app = root.add_subcommand(
      "build", "Compile and validate every kernel of a project for its "
               "targets; write OUT_DIR/build.json");
  app->add_option("PROJECT_DIR", flags->request.projectDir,
                  "Directory holding workbench.toml (default: .)")
      ->type_name("DIR");
  app->add_option("-o,--output", flags->request.outputDir,
                  "Output directory (default: [project] output_dir, else "
                  "PROJECT_DIR/kb-out)")
      ->type_name("DIR");
  app->add_option("-j,--jobs", flags->request.jobs,
                  "Parallel jobs (default: [build] jobs, else all cores)")
      ->type_name("N")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--target", flags->targets,
                  "Build only this target (cuda:sm_XX, vulkan:X.Y); repeatable")
      ->type_name("TARGET");
  app->add_flag("--no-cache", flags->request.noCache,
                "Neither read nor write the build cache");
  app->add_option("--cache-dir", flags->request.cacheDir,
                  "Cache directory (default: [build] cache_dir, else "
                  "$KB_CACHE_DIR, else $XDG_CACHE_HOME/kernel-bench)")
      ->type_name("DIR");
  // Only a kernel-bench with the HTTP client offers it (not the
  // runtime-only build).
  if (toolchains::remoteTierAvailable()) {
    app->add_option("--remote-cache", flags->request.remoteCache,
                    "Shared cache server, http(s)://HOST[:PORT][/PATH] "
                    "(default: $KB_REMOTE_CACHE, else [build] remote_cache); "
                    "credentials only from the environment or netrc")
        ->type_name("URL")
        ->check([](const std::string &url) {
          Status bad = toolchains::checkRemoteCacheUrl(url);
          return bad.ok() ? std::string() : bad.message();
        });
    app->add_flag("--no-remote-cache", flags->request.noRemoteCache,
                  "Use only the local cache");
  }
  app->add_flag("--strict", flags->request.strict,
                "Treat warnings (compiler, ptxas spills, glslc) as errors");
  app->add_flag("-v,--verbose", flags->request.verbose,
                "Print every command line and the full diagnostics");
  app->add_option("--timeout", flags->request.timeoutSeconds,
                  "Seconds before a tool is killed (default: [build] "
                  "timeout, else 120)")
      ->type_name("SECONDS")
      ->check(checkSecondsText);
  app->add_option_function<std::string>(
         "--tool-memory",
         [flags](const std::string &text) {
           flags->request.toolMemoryBytes = parseByteSize(text);
         },
         "Each tool's memory (address-space) limit, e.g. 4GiB; 0 for none "
         "(default: [build] tool_memory, else half the machine's memory)")
      ->type_name("SIZE")
      ->check([](const std::string &text) {
        return parseByteSize(text)
                   ? std::string()
                   : std::string("--tool-memory: expected ") +
                         byteSizeSyntax() + ", found `" + text + "`";
      });
  app->add_flag("--no-wait", flags->request.noWait,
                "Fail at once when another build is using the output "
                "directory (default: wait for it)");
  app->add_flag("--kernels-only", flags->request.kernelsOnly,
                "Build the kernels but not the project's program");
  app->add_flag("--explain", flags->request.explain,
                "Say why the build was not a no-op decided from stat() alone "
                "(which input changed), and why it left no stamp");
  return {app, [flags] { return runBuildCommand(*flags); }};
}

} // namespace kb::workbench
