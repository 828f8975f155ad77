//===- workbench/report/bench_table.cpp - The table `bench` ends with -----===//
#include "workbench/report/bench_table.h"

#include "workbench/report/mismatch_maps.h"
#include "workbench/report/roofline.h"
#include "workbench/report/report_rows.h"

#include "common/terminal_text.h"

#include <algorithm>
#include <cstdio>

namespace kb::report {

namespace {
using Row = std::vector<std::string>;

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string correctnessText(const Variant &v) {
  if (v.role == VariantRole::Reference)
    return "reference";
  switch (v.correctness.status) {
  case CorrectnessStatus::Correct:
    return "correct";
  case CorrectnessStatus::Incorrect:
    return "INCORRECT";
  case CorrectnessStatus::NoReference:
    return "no reference";
  case CorrectnessStatus::NotChecked:
    return "not checked";
  }
  return "?";
}

/// Columns padded to the widest cell; a one-cell row (a reason) spans the
/// table and does not widen the first column.
std::string render(std::vector<Row> rows) {
  for (Row &row : rows) // escaped before measuring, so columns stay aligned
    for (std::string &cell : row)
      cell = terminalLine(cell);
  std::vector<size_t> widths;
  for (const Row &row : rows) {
    if (row.size() < 2)
      continue;
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const Row &row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

Row timingRow(const std::string &benchmark, const std::string &variant,
              const Timing &t, const std::string &correctness) {
  const Derived &d = t.derived;
  std::string samples = std::to_string(t.summary.count);
  if (t.discarded)
    samples += " (-" + std::to_string(t.discarded) + ")";
  std::string speedup = "-";
  if (d.speedupVsReference)
    speedup = format("%.2fx", *d.speedupVsReference) +
              (d.suspiciousSpeedup ? " !" : "");
  return {benchmark, variant, toString(t.mode),
          formatMedianIqr(t.summary.median, t.summary.iqr),
          samples + (t.summary.count < kMinSamplesForVerdict ? " !" : ""),
          // One sample has no spread: "-", not a reassuring 0.00 %.
          t.summary.count < 2 ? "-"
                              : format("%.2f%%", 100 * t.summary.relativeStdev),
          d.gflopPerSecond ? format("%.1f", *d.gflopPerSecond) : "-",
          d.gbPerSecond ? format("%.1f", *d.gbPerSecond) : "-",
          d.percentOfPeak ? format("%.0f%%", *d.percentOfPeak) : "-", speedup,
          correctness};
}
/// One line per timing above 100 % of the measured peak: not a kernel
/// beating the hardware, but data resident in L2 or a wrong byte count.
std::vector<std::string> abovePeakLines(const BenchReport &report) {
  std::vector<std::string> lines;
  for (const Benchmark &b : report.benchmarks)
    for (const Variant &v : b.variants)
      for (const Timing &t : v.timings)
        if (aboveMeasuredPeak(t.derived))
          lines.push_back(
              b.name + " " + v.name + " " + toString(t.mode) + ": " +
              format("%.0f%%", *t.derived.percentOfPeak) +
              " of the measured peak copy bandwidth: the data stayed in L2 "
              "(hot samples), or the bytes moved are wrong (check "
              "[roofline] bytes_moved)");
  return lines;
}
} // namespace

std::string renderBenchTable(const BenchReport &report) {
  std::vector<Row> rows = {{"benchmark", "variant", "mode", "median ± IQR",
                            "samples", "noise", "GFLOP/s", "GB/s", "% peak",
                            "speedup", "correctness"}};
  for (const Benchmark &b : report.benchmarks) {
    if (report.settings.sanitize && b.status == BenchStatus::Ok) {
      // Checked under the checking layer, not timed.
      rows.push_back({b.name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                      b.sanitizer.empty() ? "clean" : "clean (warnings)"});
      continue;
    }
    if (report.settings.profile && b.status == BenchStatus::Ok) {
      // Run once per variant under its label, not timed.
      for (const Variant &v : b.variants)
        rows.push_back({b.name, v.name, "-", "-", "-", "-", "-", "-", "-", "-",
                        "profiled (" + correctnessText(v) + ")"});
      continue;
    }
    if (b.status != BenchStatus::Ok) {
      rows.push_back({b.name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                      statusWord(b.status)});
      rows.push_back({"    " + b.reason});
      continue;
    }
    for (const Variant &v : b.variants)
      for (const Timing &t : v.timings)
        rows.push_back(timingRow(b.name, v.name, t, correctnessText(v)));
  }
  if (report.program) {
    const ProgramResult &p = *report.program;
    std::string name = "program " + p.entryFunction;
    if (p.status != BenchStatus::Ok) {
      rows.push_back({name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                      statusWord(p.status)});
      rows.push_back({"    " + p.reason});
    } else {
      if (p.withSubstitutions) {
        Row row = timingRow(name, "with substitutions", *p.withSubstitutions,
                            "checked");
        if (p.speedup)
          row[9] = format("%.2fx", *p.speedup);
        rows.push_back(row);
      }
      if (p.generatedOnly)
        rows.push_back(
            timingRow(name, "generated only", *p.generatedOnly, "reference"));
    }
  }
  std::string text = render(rows);
  text += "device: " +
          (noDevice(report.device)
               ? deviceHeading(report.device)
               : report.device.name + " (" +
                     describeDeviceIdentity(report.device) + ")") +
          "\n";
  for (const std::string &line : resourceLines(report))
    text += "resources: " + line + "\n";
  for (const std::string &line : sanitizerLines(report, 5))
    text += "sanitizer: " + line + "\n";
  for (const std::string &line : mismatchMapLines(report, 5))
    text += "wrong: " + line + "\n";
  for (const std::string &line : counterLines(report))
    text += "counters: " + line + "\n";
  for (const std::string &line : rooflineLines(report, 12))
    text += "roofline: " + line + "\n";
  for (const std::string &line : pairedLines(report))
    text += "paired: " + line + "\n";
  for (const std::string &line : abovePeakLines(report))
    text += "warning: " + line + "\n";
  for (const std::string &line : stoppedShortLines(report))
    text += "warning: " + line + "; `compare` gives it no verdict\n";
  // What the reports carry as warnings (a module run with default
  // parameters where it was tuned for other devices, a baseline that
  // lacks a benchmark, ...) is seen on the terminal too.
  for (const std::string &line : report.environment.warnings)
    text += "warning: " + line + "\n";
  // Names, reasons and the device come from modules and drivers, not from
  // us: shown, never obeyed, by the terminal (terminal_text.h).
  return terminalText(text);
}

} // namespace kb::report
