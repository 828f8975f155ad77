//===- workbench/build/build_summary.cpp - What a build prints ------------===//
#include "workbench/build/build_summary.h"

#include <algorithm>

#include "workbench/support/progress.h"

#include "common/paths.h"
#include "common/process.h"
#include "common/terminal_text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kb::workbench {

using toolchains::BuildJobResult;
using toolchains::Severity;

namespace {

std::string formatSeconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, seconds < 10 ? "%.2f s" : "%.1f s", seconds);
  return buf;
}

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// "14 cached"; with a remote cache, "14 cached (12 local, 2 remote)".
std::string cachedText(size_t cached, std::optional<size_t> remote) {
  std::string text = std::to_string(cached) + " cached";
  if (remote)
    text += " (" + std::to_string(cached - std::min(*remote, cached)) +
            " local, " + std::to_string(*remote) + " remote)";
  return text;
}

} // namespace

std::string jobBlock(const JobRecord &job, bool verbose, bool color) {
  const BuildJobResult &r = job.result;
  std::ostringstream out;
  // Names, tool output and messages are not ours (terminal_text.h); our
  // colours are added around them.
  std::string title = terminalLine(r.kernel) + " " + r.target.toString();
  if (!r.status.ok())
    out << colorize("FAILED:", "1;31", color) << " " << title << "\n";
  else if (verbose)
    out << title << " (" << (r.cacheHit ? "cached" : "built") << ", "
        << formatSeconds(r.seconds) << ")\n";

  // The commands as the user can run them again; what ran differs in the
  // names of staged copies (build.json keeps both).
  if (verbose && !r.commands.empty()) {
    for (const toolchains::ToolInvocation &c : r.commands)
      out << "  $ "
          << terminalLine(kb::formatCommandLine(
                 c.userArgv.empty() ? c.argv : c.userArgv))
          << "\n";
    out << "  (with your paths; the tools ran on staged copies in a private "
           "directory, as build.json's argv says)\n";
  }

  bool printedWarnings = false;
  for (const toolchains::Diagnostic &d : r.diagnostics) {
    // kernel-bench's own notes say what the build could not check (a CUDA
    // kernel without __launch_bounds__): shown on every build, -v or not,
    // under no "warning:" heading.
    bool ownNote = d.severity == Severity::Note && d.tool == "kernel-bench";
    if (!verbose && r.status.ok() && !isWarningOrWorse(d.severity) && !ownNote)
      continue;
    if (r.status.ok() && !verbose && !printedWarnings && !ownNote) {
      out << colorize("warning:", "1;35", color) << " " << title << "\n";
      printedWarnings = true;
    }
    toolchains::Diagnostic shown = d;
    shown.file = terminalLine(d.file);
    shown.message = terminalText(d.message);
    shown.code = terminalLine(d.code);
    out << toolchains::formatDiagnostic(shown, color) << "\n";
  }

  // Then the tool's own output as it printed it (command line, source
  // echo, carets), and last the error itself: one line that says what
  // failed (a timeout, an ABI mismatch, which tool) and what to do.
  if (!r.status.ok()) {
    if (!r.failureLog.empty()) {
      out << terminalText(r.failureLog);
      if (r.failureLog.back() != '\n')
        out << "\n";
    }
    // Lines of the status that an error diagnostic above already says (an
    // ABI check lists each mismatch as one) are not repeated.
    std::string message;
    std::istringstream lines(r.status.message());
    for (std::string line; std::getline(lines, line);) {
      bool said =
          !line.empty() &&
          std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                      [&](const toolchains::Diagnostic &d) {
                        return isWarningOrWorse(d.severity) &&
                               d.message.find(line) != std::string::npos;
                      });
      if (!said)
        message += (message.empty() ? "" : "\n") + line;
    }
    out << colorize("error:", "1;31", color) << " " << terminalText(message)
        << "\n";
  }
  return out.str();
}

bool isWarningOrWorse(Severity severity) {
  return severity == Severity::Warning || severity == Severity::Error ||
         severity == Severity::Fatal;
}

BuildSummaryFigures summaryFigures(const BuildReport &report,
                                   const BuildTotals &totals,
                                   bool programFailed) {
  BuildSummaryFigures figures;
  figures.kernels = totals.kernels;
  figures.targets = totals.targets;
  figures.jobs = totals.jobs;
  figures.cached = totals.cacheHits;
  if (!report.options.remoteCacheUrl.empty())
    figures.remoteCached = totals.remoteCacheHits;
  figures.skippedTargets = report.skippedTargets.size();
  if (programFailed || !report.program ||
      report.program->status != StepStatus::Ok)
    return figures;
  const ProgramRecord &program = *report.program;
  figures.program = program.path ? BuildSummaryFigures::Program::Module
                                 : BuildSummaryFigures::Program::Standalone;
  figures.programCached = program.cached.value_or(false);
  figures.substitutions = program.substitutionCount();
  figures.tunedVariants = program.tunedVariantCount();
  figures.benchmarks = program.benchmarkCount();
  return figures;
}

std::string successSummaryLine(const BuildSummaryFigures &figures,
                               double wallSeconds,
                               const std::filesystem::path &buildJson,
                               bool upToDate) {
  std::ostringstream summary;
  summary << "built " << plural(figures.kernels, "kernel") << " \u00d7 "
          << plural(figures.targets, "target") << ": "
          << plural(figures.jobs, "job") << ", "
          << cachedText(figures.cached, figures.remoteCached) << ", "
          << formatSeconds(wallSeconds) << "; ";
  if (figures.skippedTargets)
    summary << plural(figures.skippedTargets, "target")
            << " skipped (missing toolchain); ";
  if (figures.program != BuildSummaryFigures::Program::None) {
    // What the program step produced. "(cached)": the step found its
    // outputs up to date and compiled nothing.
    if (figures.program == BuildSummaryFigures::Program::Module)
      summary << (figures.programCached ? "program.kbm (cached), "
                                        : "program.kbm, ");
    else if (figures.programCached)
      summary << "programs cached, ";
    summary << plural(figures.substitutions, "substitution");
    if (figures.tunedVariants)
      summary << " (+" << plural(figures.tunedVariants, "variant")
              << " tuned for a device)";
    summary << ", " << plural(figures.benchmarks, "benchmark") << "; ";
  }
  summary << displayPath(buildJson);
  if (upToDate)
    summary << " (nothing changed: kept from the last build that did)";
  return summary.str();
}

std::string buildSummaryLine(const BuildReport &report,
                             const BuildTotals &totals, bool programFailed,
                             bool color) {
  const std::filesystem::path reportPath = report.outputDir / "build.json";
  // Kernels whose kernel.toml did not load fail the build as a failed job
  // does; the rest of the line says what did build.
  std::string notLoaded;
  if (size_t broken = report.project ? report.project->brokenKernels.size() : 0)
    notLoaded = plural(broken, "kernel") + " not loaded (kernel.toml, above); ";
  if (totals.failed) {
    std::ostringstream summary;
    summary << colorize("FAILED:", "1;31", color) << " " << notLoaded
            << totals.failed << " of " << plural(totals.jobs, "job") << " ("
            << plural(totals.kernels, "kernel") << " \u00d7 "
            << plural(totals.targets, "target") << "), "
            << cachedText(totals.cacheHits,
                          report.options.remoteCacheUrl.empty()
                              ? std::nullopt
                              : std::optional<size_t>(totals.remoteCacheHits))
            << ", " << formatSeconds(report.wallSeconds) << "; see "
            << displayPath(reportPath);
    return summary.str();
  }
  std::string line =
      successSummaryLine(summaryFigures(report, totals, programFailed),
                         report.wallSeconds, reportPath, report.upToDate);
  if (programFailed)
    line = "the program step (above); " + line;
  if (!programFailed && notLoaded.empty())
    return line;
  return colorize("FAILED:", "1;31", color) + " " + notLoaded + line;
}

} // namespace kb::workbench
