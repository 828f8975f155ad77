//===- workbench/report/markdown_format.cpp - report.md -------------------===//
//
// A GitHub-flavoured Markdown table whose raw text is also aligned, so the
// same file reads well in a terminal (`cat report.md`) and in
// $GITHUB_STEP_SUMMARY. Long texts (reasons, warnings) go below the table
// as notes so the table stays narrow.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/markdown_table.h"
#include "workbench/report/program_rows.h"
#include "workbench/report/report_formats.h"
#include "workbench/report/mismatch_maps.h"
#include "workbench/report/roofline.h"
#include "workbench/report/report_rows.h"

#include <sstream>

namespace kb::report {

namespace {

std::vector<std::string> rowCells(const ReportRow &row) {
  std::string variant = row.variant ? row.variant->name : "-";
  if (!row.timed())
    return {row.benchmark->name, variant, "-", "-", "-", "-", "-", "-", "-",
            correctnessWord(row)};
  const Timing &t = *row.timing;
  const Derived &d = t.derived;
  std::string speedup =
      d.speedupVsReference ? formatNumber(d.speedupVsReference, 2) + "x" : "-";
  if (d.suspiciousSpeedup)
    speedup += " (!)";
  return {row.benchmark->name,
          variant,
          toString(t.mode),
          formatMedianIqr(t.summary.median, t.summary.iqr),
          std::to_string(t.samples.size()),
          formatNumber(d.gflopPerSecond, 1),
          formatNumber(d.gbPerSecond, 1),
          formatNumber(d.percentOfPeak, 1),
          speedup,
          correctnessWord(row)};
}

/// A row of the whole program, after the benchmarks' (as in the terminal
/// table): the substituted run's speedup is over the generated-only run.
std::vector<std::string> programCells(const ProgramRow &row) {
  if (!row.timing)
    return {row.name, row.variant, "-", "-", "-",
            "-",      "-",         "-", "-", row.statusWord()};
  const Timing &t = *row.timing;
  return {row.name,
          row.variant,
          toString(t.mode),
          formatMedianIqr(t.summary.median, t.summary.iqr),
          std::to_string(t.samples.size()),
          formatNumber(t.derived.gflopPerSecond, 1),
          formatNumber(t.derived.gbPerSecond, 1),
          formatNumber(t.derived.percentOfPeak, 1),
          row.speedup ? formatNumber(row.speedup, 2) + "x" : "-",
          row.statusWord()};
}

std::vector<std::string> notes(const BenchReport &report,
                               const std::vector<ReportRow> &rows) {
  std::vector<std::string> out;
  for (const Benchmark &b : report.benchmarks)
    if (b.status != BenchStatus::Ok)
      out.push_back("**" + markdownText(b.name) + "** " + toString(b.status) +
                    (b.reason.empty() ? "" : ": " + markdownText(b.reason)));
  if (report.program && report.program->status != BenchStatus::Ok)
    out.push_back("**program " + markdownText(report.program->entryFunction) +
                  "** " + toString(report.program->status) +
                  (report.program->reason.empty()
                       ? ""
                       : ": " + markdownText(report.program->reason)));
  for (const ReportRow &row : rows) {
    if (!row.timed())
      continue;
    const Derived &d = row.timing->derived;
    if (d.suspiciousSpeedup)
      out.push_back("**" + markdownText(row.id) + "** is " +
                    formatNumber(d.speedupVsReference, 1) +
                    "x faster than its reference: check by hand that it "
                    "computes the same thing");
    if (aboveMeasuredPeak(d))
      out.push_back("**" + markdownText(row.id) + "** moves " +
                    formatNumber(d.percentOfPeak, 0) +
                    " % of the measured peak: its data stayed in L2, or "
                    "its byte count is wrong");
  }
  for (const std::string &line : stoppedShortLines(report))
    out.push_back(markdownText(line) + "; `compare` gives it no verdict");
  for (const std::string &line : sanitizerLines(report, 20))
    out.push_back("sanitizer: " + markdownText(line));
  for (const std::string &line : mismatchMapLines(report, 20))
    out.push_back("wrong: " + markdownText(line));
  for (const std::string &line : rooflineLines(report, 50))
    out.push_back("roofline: " + markdownText(line));
  for (const std::string &w : report.environment.warnings)
    out.push_back("warning: " + markdownText(w));
  return out;
}

} // namespace

std::string renderMarkdown(const BenchReport &report) {
  std::ostringstream out;
  // Every text from the device, the modules or the run is escaped
  // (markdownText): report.md lands in $GITHUB_STEP_SUMMARY as it is.
  out << "## kernel-bench: " << markdownText(deviceHeading(report.device))
      << "\n\n";
  if (!noDevice(report.device))
    out << "Device: " << markdownText(describeDeviceIdentity(report.device))
        << ".\n\n";
  if (report.interrupted)
    out << "**Interrupted**: the run was stopped; the rows below are what "
           "finished.\n\n";
  if (report.settings.quick)
    out << "Quick settings (" << markdownText(report.settings.quickReason)
        << "): noise is reported, not required.\n\n";
  std::vector<ReportRow> rows = reportRows(report);
  MarkdownTable table(
      {"benchmark", "variant", "mode", "median \u00b1 IQR", "samples",
       "GFLOP/s", "GB/s", "% peak", "vs ref", "correctness"},
      {false, false, false, true, true, true, true, true, true, false});
  for (const ReportRow &row : rows)
    table.addRow(rowCells(row));
  for (const ProgramRow &row : programRows(report))
    table.addRow(programCells(row));
  out << table.render();
  std::vector<std::string> n = notes(report, rows);
  if (!n.empty()) {
    out << "\n";
    for (const std::string &line : n)
      out << "- " << line << "\n";
  }
  std::vector<std::string> paired = pairedLines(report);
  if (!paired.empty()) {
    out << "\nPaired with the baseline build (candidate / baseline, median "
           "of per-pair ratios, 95 % CI):\n\n";
    for (const std::string &line : paired)
      out << "- " << markdownText(line) << "\n";
  }
  std::vector<std::string> resources = resourceLines(report);
  if (!resources.empty()) {
    out << "\nResources (ptxas):\n\n";
    for (const std::string &line : resources)
      out << "- " << markdownText(line) << "\n";
  }
  std::vector<std::string> counters = counterLines(report);
  if (!counters.empty()) {
    out << "\nHardware counters (`--counters`, one run of each variant):\n\n";
    for (const std::string &line : counters)
      out << "- " << markdownText(line) << "\n";
  }
  if (report.device.peakCopyGBps)
    out << "\n% peak: of the measured copy bandwidth, "
        << formatNumber(report.device.peakCopyGBps, 1) << " GB/s.\n";
  if (report.device.peakFmaGflops)
    out << "\nThe roofline's compute ceiling: the measured FMA peak, "
        << formatNumber(report.device.peakFmaGflops, 1) << " GFLOP/s.\n";
  return out.str();
}

} // namespace kb::report
