//===- workbench/report/bench_table.cpp - The table `bench` ends with -----===//
#include "workbench/report/bench_table.h"

#include "workbench/report/report_rows.h"

#include <algorithm>
#include <cstdio>

namespace kb::workbench {

namespace {
using Row = std::vector<std::string>;

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string statusText(report::BenchStatus status) {
  switch (status) {
  case report::BenchStatus::Ok:
    return "ok";
  case report::BenchStatus::Incorrect:
    return "INCORRECT";
  case report::BenchStatus::Error:
    return "ERROR";
  case report::BenchStatus::Skipped:
    return "SKIPPED";
  }
  return "?";
}

std::string correctnessText(const report::Variant &v) {
  if (v.role == report::VariantRole::Reference)
    return "reference";
  switch (v.correctness.status) {
  case report::CorrectnessStatus::Correct:
    return "correct";
  case report::CorrectnessStatus::Incorrect:
    return "INCORRECT";
  case report::CorrectnessStatus::NoReference:
    return "no reference";
  case report::CorrectnessStatus::NotChecked:
    return "not checked";
  }
  return "?";
}

/// Columns padded to the widest cell; a one-cell row (a reason) spans the
/// table and does not widen the first column.
std::string render(const std::vector<Row> &rows) {
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
              const report::Timing &t, const std::string &correctness) {
  const report::Derived &d = t.derived;
  std::string samples = std::to_string(t.summary.count);
  if (t.discarded)
    samples += " (-" + std::to_string(t.discarded) + ")";
  std::string speedup = "-";
  if (d.speedupVsReference)
    speedup = format("%.2fx", *d.speedupVsReference) +
              (d.suspiciousSpeedup ? " !" : "");
  return {benchmark,
          variant,
          report::toString(t.mode),
          report::formatMedianIqr(t.summary.median, t.summary.iqr),
          samples,
          format("%.2f%%", 100 * t.summary.relativeStdev),
          d.gflopPerSecond ? format("%.1f", *d.gflopPerSecond) : "-",
          d.gbPerSecond ? format("%.1f", *d.gbPerSecond) : "-",
          d.percentOfPeak ? format("%.0f%%", *d.percentOfPeak) : "-",
          speedup,
          correctness};
}
/// One line per timing above 100 % of the measured peak: not a kernel
/// beating the hardware, but data resident in L2 or a wrong byte count.
std::vector<std::string> abovePeakLines(const report::BenchReport &report) {
  std::vector<std::string> lines;
  for (const report::Benchmark &b : report.benchmarks)
    for (const report::Variant &v : b.variants)
      for (const report::Timing &t : v.timings)
        if (report::aboveMeasuredPeak(t.derived))
          lines.push_back(
              b.name + " " + v.name + " " + report::toString(t.mode) + ": " +
              format("%.0f%%", *t.derived.percentOfPeak) +
              " of the measured peak copy bandwidth: the data stayed in L2 "
              "(hot samples), or the bytes moved are wrong (check "
              "[roofline] bytes_moved)");
  return lines;
}
} // namespace

std::string renderBenchTable(const report::BenchReport &report) {
  std::vector<Row> rows = {{"benchmark", "variant", "mode", "median ± IQR",
                            "samples", "noise", "GFLOP/s", "GB/s", "% peak",
                            "speedup", "correctness"}};
  for (const report::Benchmark &b : report.benchmarks) {
    if (b.status != report::BenchStatus::Ok) {
      rows.push_back({b.name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                      statusText(b.status)});
      rows.push_back({"    " + b.reason});
      continue;
    }
    for (const report::Variant &v : b.variants)
      for (const report::Timing &t : v.timings)
        rows.push_back(timingRow(b.name, v.name, t, correctnessText(v)));
  }
  if (report.program) {
    const report::ProgramResult &p = *report.program;
    std::string name = "program " + p.entryFunction;
    if (p.status != report::BenchStatus::Ok) {
      rows.push_back({name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                      statusText(p.status)});
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
  text += "device: " + report.device.name + " (" +
          report::describeDeviceIdentity(report.device) + ")\n";
  for (const std::string &line : report::resourceLines(report))
    text += "resources: " + line + "\n";
  for (const std::string &line : report::pairedLines(report))
    text += "paired: " + line + "\n";
  for (const std::string &line : abovePeakLines(report))
    text += "warning: " + line + "\n";
  // What the reports carry as warnings (a module run with default
  // parameters where it was tuned for other devices, a baseline that
  // lacks a benchmark, ...) is seen on the terminal too.
  for (const std::string &line : report.environment.warnings)
    text += "warning: " + line + "\n";
  return text;
}

} // namespace kb::workbench
