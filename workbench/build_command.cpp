//===- workbench/build_command.cpp - `kernel-bench build` -----------------===//
//
// Loads a project, runs one job per (kernel, target) on N worker threads
// through toolchains::KernelBuilder, shows ninja-style progress, writes
// OUT_DIR/build.json and, when the project names a program, hands the
// successful kernels to the program step (program_step.h).
//
// Exit codes: 0 every job succeeded; 1 a project, kernel or toolchain error
// (a missing toolchain included: the message says which targets to drop);
// 2 a usage error; 128 + N interrupted by signal N (130 for Ctrl-C).
//
//===----------------------------------------------------------------------===//
#include "workbench/build_report.h"
#include "workbench/command.h"
#include "workbench/program_step.h"
#include "workbench/progress.h"
#include "workbench/project.h"

#include "toolchains/build_cache.h"
#include "toolchains/file_hash_memo.h"
#include "toolchains/file_util.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/process.h"
#include "toolchains/toolchains.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <pthread.h>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::BuildJobResult;
using toolchains::KernelSpec;
using toolchains::Severity;
using toolchains::Target;

namespace {

struct BuildFlags {
  std::string projectDir = ".";
  std::string outputDir;
  unsigned jobs = 0;
  std::vector<std::string> targets;
  bool noCache = false;
  std::string cacheDir;
  bool strict = false;
  bool verbose = false;
  double timeoutSeconds = 0;
  bool kernelsOnly = false;
};

void printError(const std::string &message) {
  std::fprintf(stderr, "kernel-bench: error: %s\n", message.c_str());
}

fs::path absoluteNormal(const fs::path &path) {
  return fs::absolute(path).lexically_normal();
}

/// `--strict`: warnings are errors in every tool that has warnings, and
/// ptxas spill warnings too. The flags become part of each tool's argv, so
/// the cache keeps strict and non-strict results apart.
KernelSpec strictSpec(KernelSpec spec) {
  auto add = [&](const char *tool, std::vector<std::string> flags) {
    auto &list = spec.extraFlags[tool];
    list.insert(list.end(), flags.begin(), flags.end());
  };
  add("nvcc", {"-Werror", "all-warnings"});
  add("ptxas", {"--warning-as-error"});
  add("glslc", {"-Werror"});
  spec.spillsAreErrors = true;
  return spec;
}

bool isWarningOrWorse(Severity severity) {
  return severity == Severity::Warning || severity == Severity::Error ||
         severity == Severity::Fatal;
}

std::string formatSeconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, seconds < 10 ? "%.2f s" : "%.1f s", seconds);
  return buf;
}

/// The block printed when a job ends: nothing for a quiet success, the
/// warnings of a success, or everything about a failure.
std::string jobBlock(const JobRecord &job, bool verbose, bool color) {
  const BuildJobResult &r = job.result;
  std::ostringstream out;
  std::string title = r.kernel + " " + r.target.toString();
  if (!r.status.ok())
    out << colorize("FAILED:", "1;31", color) << " " << title << "\n";
  else if (verbose)
    out << title << " (" << (r.cacheHit ? "cached" : "built") << ", "
        << formatSeconds(r.seconds) << ")\n";

  if (verbose)
    for (const toolchains::ToolInvocation &c : r.commands)
      out << "  $ " << toolchains::formatCommandLine(c.argv) << "\n";

  bool printedWarnings = false;
  for (const toolchains::Diagnostic &d : r.diagnostics) {
    if (!verbose && r.status.ok() && !isWarningOrWorse(d.severity))
      continue;
    if (r.status.ok() && !verbose && !printedWarnings)
      out << colorize("warning:", "1;35", color) << " " << title << "\n";
    printedWarnings = true;
    out << toolchains::formatDiagnostic(d, color) << "\n";
  }

  // Then the tool's own output as it printed it (command line, source
  // echo, carets), and last the error itself: one line that says what
  // failed (a timeout, an ABI mismatch, which tool) and what to do.
  if (!r.status.ok()) {
    if (!r.failureLog.empty()) {
      out << r.failureLog;
      if (r.failureLog.back() != '\n')
        out << "\n";
    }
    out << colorize("error:", "1;31", color) << " " << r.status.message()
        << "\n";
  }
  return out.str();
}

/// A failed job leaves nothing under OUT_DIR/kernels for its (kernel,
/// target): outputs of an earlier successful build are removed too, so
/// nothing downstream picks up a stale binary (make's .DELETE_ON_ERROR).
void removeOutputs(const fs::path &outDir, const BuildJobResult &result) {
  fs::path dir = outDir / "kernels" / result.kernel;
  std::error_code ec;
  for (const char *ext : {".ptx", ".cubin", ".spv"})
    fs::remove(dir / (result.target.fileStem() + ext), ec);
  for (const toolchains::OutputFile &o : result.outputs)
    fs::remove(o.path, ec);
  fs::remove(dir, ec); // Only when empty.
}

/// The tools the planned jobs need, found (and version-probed) up front.
Status checkToolsAvailable(const toolchains::Toolchains &tools,
                           const std::vector<PlannedJob> &plan) {
  std::map<std::string, std::set<std::string>> neededBy; // tool -> targets
  for (const PlannedJob &job : plan) {
    std::vector<const char *> needed;
    if (job.target.kind == Target::Kind::Cuda)
      needed = {"nvcc", "ptxas", "host-cxx"};
    else
      needed = {"glslc", "spirv-val"};
    if (job.target.kind == Target::Kind::Vulkan && job.spec->optimizeSpirv)
      needed.push_back("spirv-opt");
    for (const char *tool : needed)
      neededBy[tool].insert(job.target.toString());
  }
  std::string messages;
  std::set<std::string> dropped, kept;
  for (const auto &[tool, targets] : neededBy) {
    StatusOr<toolchains::ToolIdentity> found = tools.find(tool);
    if (found.ok())
      continue;
    if (!found.status().isUnavailable())
      return found.status();
    messages += found.status().message() + "\n";
    dropped.insert(targets.begin(), targets.end());
  }
  if (dropped.empty())
    return okStatus();
  for (const PlannedJob &job : plan)
    if (!dropped.count(job.target.toString()))
      kept.insert(job.target.toString());
  std::string advice = "cannot build ";
  bool first = true;
  for (const std::string &t : dropped) {
    advice += (first ? "" : ", ") + t;
    first = false;
  }
  advice += " on this machine: install the missing tool (or point "
            "[toolchains] in workbench.toml at it)";
  if (!kept.empty()) {
    advice += ", or build only the other targets:";
    for (const std::string &t : kept)
      advice += " --target " + t;
  }
  return unavailable(messages + advice);
}

/// Ctrl-C and SIGTERM while a build runs. Every tool leads its own process
/// group (toolchains/process.h), so the terminal's SIGINT reaches only us:
/// without forwarding, nvcc and cicc would keep running after we exit.
///
/// SIGINT and SIGTERM are blocked in this thread (and so in the workers
/// started after it; tools get an empty mask from the process runner) and a
/// waiter thread takes them with sigtimedwait. On the first one it sends the
/// same signal to every tool's process group, and keeps re-sending it every
/// few milliseconds until the build is done, so a tool spawned just after
/// the signal (between steps, or before its group was registered) is stopped
/// too; tools still alive after kGrace get SIGKILL, and a second signal
/// sends SIGKILL at once. No async-signal-safety concerns: the waiter is an
/// ordinary thread.
class InterruptForwarder {
public:
  InterruptForwarder() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previousMask_);
    waiter_ = std::thread([this] { wait(); });
  }
  ~InterruptForwarder() {
    done_ = true;
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &previousMask_, nullptr);
  }
  InterruptForwarder(const InterruptForwarder &) = delete;
  InterruptForwarder &operator=(const InterruptForwarder &) = delete;

  /// The signal that interrupted the build; 0 when none did.
  int signal() const { return signal_.load(); }

private:
  static constexpr std::chrono::milliseconds kGrace{2000};

  void wait() {
    const timespec poll = {0, 10 * 1000 * 1000};
    std::chrono::steady_clock::time_point first;
    bool killed = false;
    while (!done_) {
      int got = sigtimedwait(&signals_, nullptr, &poll);
      auto now = std::chrono::steady_clock::now();
      if (got > 0 && signal_.load() == 0) {
        signal_ = got;
        first = now;
      } else if (got > 0) {
        killed = true; // A second signal: no more patience.
      }
      int received = signal_.load();
      if (received == 0)
        continue;
      if (!killed && now - first >= kGrace)
        killed = true;
      toolchains::signalAllProcessGroups(killed ? SIGKILL : received);
    }
  }

  sigset_t signals_;
  sigset_t previousMask_;
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  std::thread waiter_;
};

/// "SIGINT (Ctrl-C)" / "SIGTERM".
std::string signalName(int signal) {
  if (signal == SIGINT)
    return "SIGINT (Ctrl-C)";
  const char *abbrev = ::sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev
                : "signal " + std::to_string(signal);
}

int runBuild(const BuildFlags &flags) {
  auto wallStart = std::chrono::steady_clock::now();

  std::vector<Target> requested;
  for (const std::string &text : flags.targets) {
    StatusOr<Target> target = Target::parse(text);
    if (!target.ok()) {
      printError("--target " + text + ": " + target.status().message());
      return kExitUsage;
    }
    if (std::find(requested.begin(), requested.end(), *target) ==
        requested.end())
      requested.push_back(*target);
  }

  StatusOr<Project> loaded = loadProject(flags.projectDir);
  if (!loaded.ok()) {
    printError(loaded.status().message());
    return kExitUserError;
  }
  const Project &project = *loaded;

  // The program step also synthesizes and compiles the one-dispatch program
  // of every standalone kernel (`[bench]`).
  const Kernel *standalone = nullptr;
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench && !standalone)
      standalone = &kernel;
  bool compileProgramStep =
      (project.program || standalone) && !flags.kernelsOnly;
  if (compileProgramStep && !canCompilePrograms()) {
    printError((project.program
                    ? displayPath(project.manifest) + " names a program (" +
                          displayPath(*project.program) + ")"
                    : displayPath(standalone->manifest) +
                          " has a [bench] table (its benchmark program is "
                          "compiled)") +
               " but " + programCompilerUnavailableReason() +
               "; pass --kernels-only to build just the kernels");
    return kExitUserError;
  }
  const nlohmann::ordered_json programPath =
      project.program ? nlohmann::ordered_json(project.program->string())
                      : nlohmann::ordered_json(nullptr);

  StatusOr<std::vector<PlannedJob>> planned = planJobs(project, requested);
  if (!planned.ok()) {
    printError(planned.status().message());
    return kExitUserError;
  }

  const fs::path outDir = flags.outputDir.empty()
                              ? project.outputDir
                              : absoluteNormal(flags.outputDir);
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) {
    printError("cannot create the output directory " + displayPath(outDir) +
               ": " + ec.message());
    return kExitUserError;
  }

  unsigned jobs = flags.jobs ? flags.jobs : project.build.jobs;
  if (jobs == 0)
    jobs = std::max(1u, std::thread::hardware_concurrency());
  double timeoutSeconds = flags.timeoutSeconds > 0
                              ? flags.timeoutSeconds
                              : project.build.timeoutSeconds.value_or(120.0);

  BuildReport report;
  report.project = &project;
  report.outputDir = outDir;
  report.options.jobs = jobs;
  report.options.requestedTargets = requested;
  report.options.strict = flags.strict;
  report.options.timeoutSeconds = timeoutSeconds;
  report.options.kernelsOnly = flags.kernelsOnly;
  auto writeReport = [&]() -> Status {
    report.wallSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - wallStart)
                             .count();
    return toolchains::writeFileAtomic(outDir / "build.json",
                                       toJson(report).dump(2) + "\n");
  };

  fs::path cacheDir;
  std::unique_ptr<toolchains::BuildCache> cache;
  if (!flags.noCache) {
    if (!flags.cacheDir.empty()) {
      cacheDir = absoluteNormal(flags.cacheDir);
    } else if (!project.build.cacheDir.empty()) {
      cacheDir = project.build.cacheDir;
    } else {
      StatusOr<fs::path> defaultDir =
          toolchains::BuildCache::defaultDirectory();
      if (!defaultDir.ok()) {
        printError(defaultDir.status().message() +
                   "; pass --cache-dir DIR or --no-cache");
        return kExitUserError;
      }
      cacheDir = *defaultDir;
    }
    StatusOr<std::unique_ptr<toolchains::BuildCache>> opened =
        toolchains::BuildCache::open(cacheDir);
    if (!opened.ok()) {
      printError(opened.status().message() +
                 "; pass another --cache-dir or --no-cache");
      return kExitUserError;
    }
    cache = std::move(*opened);
  }
  report.options.cacheEnabled = cache != nullptr;
  report.options.cacheDir = cacheDir;

  toolchains::ToolchainsConfig toolConfig;
  toolConfig.overrides = project.toolOverrides;
  // Tool --version probes are remembered next to the cache, so a no-op
  // build spawns no process at all.
  toolConfig.probeCacheDirectory = cacheDir;
  toolchains::Toolchains tools(toolConfig);

  // Every tool a planned target needs must be there before anything runs:
  // a build that silently skips a target would look like a success.
  if (Status missing = checkToolsAvailable(tools, *planned); !missing.ok()) {
    printError(missing.message());
    report.error = missing.message();
    writeReport().ignoreError();
    return kExitUserError;
  }

  toolchains::BuildOptions buildOptions;
  buildOptions.timeout = std::chrono::milliseconds(
      static_cast<int64_t>(std::llround(timeoutSeconds * 1000)));
  buildOptions.verbose = flags.verbose;
  toolchains::KernelBuilder builder(tools, cache.get(), buildOptions);

  // Strict specs are copies; records point at the project's own specs.
  std::vector<KernelSpec> specs;
  specs.reserve(planned->size());
  for (const PlannedJob &job : *planned)
    specs.push_back(flags.strict ? strictSpec(*job.spec) : *job.spec);

  // From here to the end a SIGINT/SIGTERM stops the tools, lets the running
  // jobs fail (outputs are published only by a job that completed), starts
  // no new job, skips the program step and still writes build.json.
  InterruptForwarder interrupt;
  auto interruptedStatus = [&](const PlannedJob &job, const char *what) {
    return Status(StatusCode::Aborted, job.kernel->name + " for " +
                                           job.target.toString() + ": " + what +
                                           ": the build was interrupted by " +
                                           signalName(interrupt.signal()));
  };

  std::vector<JobRecord> records(planned->size());
  std::vector<char> started(planned->size(), 0);
  ProgressOptions terminal = detectTerminal();
  Progress progress(stdout, terminal, planned->size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < planned->size() && !interrupt.signal();
         i = next++) {
      started[i] = 1;
      const PlannedJob &job = (*planned)[i];
      progress.jobStarted();
      JobRecord &record = records[i];
      record.kernel = job.kernel;
      record.spec = job.spec;
      // Steps name the source by absolute path; show it as the user sees it.
      const std::string absolute = job.spec->source.string();
      const std::string shown = displayPath(job.spec->source);
      try {
        record.result = builder.build(
            specs[i], job.target, outDir, [&](const std::string &step) {
              std::string line = step;
              if (size_t at = line.find(absolute); at != std::string::npos)
                line.replace(at, absolute.size(), shown);
              progress.step(line);
            });
      } catch (const std::exception &e) {
        // An exception escaping a worker thread would terminate the whole
        // build; make it this job's failure instead.
        record.result.kernel = job.kernel->name;
        record.result.target = job.target;
        record.result.status =
            internalError(job.kernel->name + " for " + job.target.toString() +
                          ": " + e.what());
      }
      if (flags.strict && record.result.status.ok()) {
        size_t warnings = std::count_if(record.result.diagnostics.begin(),
                                        record.result.diagnostics.end(),
                                        [](const toolchains::Diagnostic &d) {
                                          return isWarningOrWorse(d.severity);
                                        });
        if (warnings)
          record.result.status = invalidArgument(
              std::to_string(warnings) + " warning" +
              (warnings == 1 ? "" : "s") + " treated as errors (--strict)");
      }
      if (!record.result.status.ok()) {
        removeOutputs(outDir, record.result);
        record.result.outputs.clear();
        record.result.resources.reset();
        if (interrupt.signal()) {
          // Its tool was stopped by us; the failure block would be noise.
          record.result.status = interruptedStatus(job, "stopped");
          progress.jobFinished("");
          continue;
        }
      }
      progress.jobFinished(jobBlock(record, flags.verbose, terminal.color));
    }
  };
  {
    std::vector<std::thread> threads;
    unsigned n = std::min<unsigned>(jobs, std::max<size_t>(1, planned->size()));
    for (unsigned t = 0; t < n; ++t)
      threads.emplace_back(worker);
    for (std::thread &t : threads)
      t.join();
  }
  progress.finish();
  // The dependency and output hashes this build computed, for the next one.
  if (cache)
    cache->saveFileHashes().ignoreError();

  const int interruptedBy = interrupt.signal();
  if (interruptedBy) {
    for (size_t i = 0; i < records.size(); ++i) {
      if (started[i])
        continue;
      const PlannedJob &job = (*planned)[i];
      JobRecord &record = records[i];
      record.kernel = job.kernel;
      record.spec = job.spec;
      record.result.kernel = job.kernel->name;
      record.result.target = job.target;
      record.result.status = interruptedStatus(job, "not started");
    }
    report.error = "interrupted by " + signalName(interruptedBy) +
                   ": the tools were stopped, jobs that had not finished "
                   "published nothing";
  }
  report.jobs = std::move(records);

  BuildTotals totals = computeTotals(report);
  int exitCode = totals.failed ? kExitUserError : kExitOk;

  bool programFailed = false;
  if (compileProgramStep) {
    // A skipped step must not leave an earlier build's modules behind for
    // `kernel-bench run` to run as if they were current.
    if (interruptedBy || totals.failed)
      discardProgramOutputs(project, outDir);
    if (interruptedBy) {
      report.program = {{"path", programPath},
                        {"status", "skipped"},
                        {"reason", "the build was interrupted"}};
    } else if (totals.failed) {
      report.program = {{"path", programPath},
                        {"status", "skipped"},
                        {"reason", "kernel jobs failed"}};
    } else {
      std::vector<const JobRecord *> succeeded;
      for (const JobRecord &job : report.jobs)
        succeeded.push_back(&job);
      ProgramStepOptions step;
      // The targets this build built: `--target` narrows the program too,
      // so no variant is generated for a target nobody asked for.
      step.targets = requested.empty() ? project.targets : requested;
      if (std::any_of(
              step.targets.begin(), step.targets.end(),
              [](const Target &t) { return t.kind == Target::Kind::Cuda; }))
        if (StatusOr<toolchains::ToolIdentity> ptxas = tools.find("ptxas");
            ptxas.ok())
          step.ptxas = *ptxas;
      // The cache's memo when there is a cache (a no-op build then only
      // stats); --no-cache also compiles the program again.
      toolchains::FileHashMemo localHashes;
      step.hashFile = [&](const std::string &path) {
        return cache ? cache->hashFile(path) : localHashes.hash(path);
      };
      step.reuse = cache != nullptr;
      Status status =
          compileProgram(project, succeeded, outDir, step, report.program);
      if (cache)
        cache->saveFileHashes().ignoreError();
      if (!status.ok()) {
        printError(status.message());
        exitCode = kExitUserError;
        programFailed = true;
      }
    }
  }

  fs::path reportPath = outDir / "build.json";
  Status written = writeReport();
  if (!written.ok()) {
    printError(written.message());
    exitCode = kExitUserError;
  }

  if (interruptedBy) {
    printError("interrupted by " + signalName(interruptedBy) + ": " +
               std::to_string(totals.succeeded) + " of " +
               std::to_string(totals.jobs) + " jobs finished; see " +
               displayPath(reportPath));
    return 128 + interruptedBy;
  }

  auto plural = [](size_t n, const char *word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  std::ostringstream summary;
  if (totals.failed)
    summary << colorize("FAILED:", "1;31", terminal.color) << " "
            << totals.failed << " of " << plural(totals.jobs, "job") << " ("
            << plural(totals.kernels, "kernel") << " \u00d7 "
            << plural(totals.targets, "target") << "), " << totals.cacheHits
            << " cached, " << formatSeconds(report.wallSeconds) << "; see "
            << displayPath(reportPath);
  else {
    if (programFailed)
      summary << colorize("FAILED:", "1;31", terminal.color)
              << " the program step (above); ";
    summary << "built " << plural(totals.kernels, "kernel") << " \u00d7 "
            << plural(totals.targets, "target") << ": "
            << plural(totals.jobs, "job") << ", " << totals.cacheHits
            << " cached, " << formatSeconds(report.wallSeconds) << "; ";
    if (!programFailed && report.program.is_object() &&
        report.program.value("status", "") == "ok") {
      // What the program step produced, from its build.json record.
      size_t benchmarks = 0, substitutions = 0;
      auto count = [&](const nlohmann::ordered_json &r) {
        if (r.contains("benchmarks"))
          benchmarks += r["benchmarks"].size();
        if (r.contains("substitutions"))
          substitutions += r["substitutions"].size();
      };
      count(report.program);
      if (report.program.contains("standalone"))
        for (const auto &r : report.program["standalone"])
          count(r);
      // "(cached)": the step found its outputs up to date and compiled
      // nothing.
      bool cached = report.program.value("cached", false);
      if (!report.program["path"].is_null())
        summary << (cached ? "program.kbm (cached), " : "program.kbm, ");
      else if (cached)
        summary << "programs cached, ";
      summary << plural(substitutions, "substitution") << ", "
              << plural(benchmarks, "benchmark") << "; ";
    }
    summary << displayPath(reportPath);
  }
  progress.printLine(summary.str());
  return exitCode;
}

} // namespace

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
  app->add_flag("--strict", flags->strict,
                "Treat warnings (compiler, ptxas spills, glslc) as errors");
  app->add_flag("-v,--verbose", flags->verbose,
                "Print every command line and the full diagnostics");
  app->add_option("--timeout", flags->timeoutSeconds,
                  "Seconds before a tool is killed (default: [build] "
                  "timeout, else 120)")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  app->add_flag("--kernels-only", flags->kernelsOnly,
                "Build the kernels but not the project's program");
  return {app, [flags] { return runBuild(*flags); }};
}

} // namespace kb::workbench
