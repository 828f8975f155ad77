//===- workbench/report/report_rows.cpp - One row per thing timed ---------===//
#include "workbench/report/report_rows.h"

#include "runtime/bench/stopping_rule.h"

#include <cmath>
#include <algorithm>
#include <cstdio>

namespace kb::report {

namespace {
std::string hexId(uint32_t id) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", id);
  return text;
}
} // namespace

std::string statusWord(BenchStatus status) {
  switch (status) {
  case BenchStatus::Ok:
    return "ok";
  case BenchStatus::Incorrect:
    return "INCORRECT";
  case BenchStatus::Error:
    return "ERROR";
  case BenchStatus::Skipped:
    return "SKIPPED";
  case BenchStatus::Sanitizer:
    return "SANITIZER";
  }
  return "ERROR";
}

std::vector<std::string> sanitizerLines(const BenchReport &report,
                                        size_t maxPerBenchmark) {
  std::vector<std::string> lines;
  for (const Benchmark &b : report.benchmarks) {
    size_t shown = 0;
    for (const SanitizerFinding &f : b.sanitizer) {
      if (shown++ == maxPerBenchmark) {
        lines.push_back(b.name + ": " +
                        std::to_string(b.sanitizer.size() - maxPerBenchmark) +
                        " more (bench.json has them all)");
        break;
      }
      lines.push_back(b.name + ": " + f.variant + " (inputs " + f.inputs +
                      "): " + (f.error ? "error: " : "warning: ") + f.message);
    }
  }
  return lines;
}

std::string correctnessWord(const ReportRow &row) {
  if (!row.variant)
    return row.verdict() == "skipped" ? "skipped" : "ERROR";
  switch (row.variant->correctness.status) {
  case CorrectnessStatus::Correct:
    if (row.timed() || row.benchmark->status == BenchStatus::Ok)
      return "correct";
    return row.benchmark->status == BenchStatus::Sanitizer ? "SANITIZER"
                                                           : "ERROR";
  case CorrectnessStatus::Incorrect:
    return "INCORRECT";
  case CorrectnessStatus::NoReference:
    return "no reference";
  case CorrectnessStatus::NotChecked:
    return row.variant->role == VariantRole::Reference ? "(reference)"
                                                       : "not checked";
  }
  return "";
}

std::string describeDeviceIdentity(const DeviceInfo &d) {
  std::string text = d.driver;
  if (!d.type.empty())
    text += " " + d.type;
  if (d.vendorId)
    text += ", vendor " + hexId(d.vendorId);
  if (d.deviceId)
    text += ", device " + hexId(d.deviceId);
  if (!d.uuid.empty())
    text += ", UUID " + d.uuid;
  if (!d.driverVersion.empty())
    text += ", driver " + d.driverVersion;
  return text;
}

bool noDevice(const DeviceInfo &d) {
  return d.name.empty() && d.driver.empty();
}

std::string deviceHeading(const DeviceInfo &d) {
  if (noDevice(d))
    return "no device (no benchmark reached one)";
  return d.name + " (" + d.driver + ")";
}

std::string describeResources(const ResourceUsage &r) {
  return std::to_string(r.registers) + " registers, " +
         std::to_string(r.spillStoreBytes) + " B spill stores, " +
         std::to_string(r.spillLoadBytes) + " B spill loads, " +
         std::to_string(r.stackFrameBytes) + " B stack, " +
         std::to_string(r.sharedMemoryBytes) + " B shared memory";
}

std::vector<std::string> resourceLines(const BenchReport &report) {
  std::vector<std::string> lines;
  for (const Benchmark &b : report.benchmarks)
    for (const Variant &v : b.variants)
      if (v.resources)
        lines.push_back(b.name + "/" + v.name + " (" + v.target +
                        "): " + describeResources(*v.resources));
  return lines;
}

namespace {
/// "8.39 MB", "12.1 GB".
std::string decimalBytes(double bytes) {
  char text[32];
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  else
    std::snprintf(text, sizeof text, "%.3g MB", bytes / 1e6);
  return text;
}

std::string describeCounters(const hal::KernelCounters &c) {
  char text[160];
  std::snprintf(text, sizeof text,
                "; achieved occupancy %.1f%%; SM throughput %.1f%%; %u "
                "kernel%s, %.3g us (%u pass%s)",
                c.achievedOccupancyPct, c.smThroughputPct, c.kernels,
                c.kernels == 1 ? "" : "s", c.gpuTimeNs / 1e3, c.passes,
                c.passes == 1 ? "" : "es");
  return "DRAM " + decimalBytes(c.dramBytesRead) + " read, " +
         decimalBytes(c.dramBytesWritten) + " written" + text;
}
} // namespace

std::vector<std::string> counterLines(const BenchReport &report) {
  std::vector<std::string> lines, skipped;
  for (const Benchmark &b : report.benchmarks)
    for (const Variant &v : b.variants) {
      std::string id = b.name + "/" + v.name;
      if (v.counters)
        lines.push_back(id + ": " + describeCounters(*v.counters));
      else if (v.countersNote.rfind("skipped: ", 0) == 0) {
        // The device's or the host's reason, the same for every variant.
        if (std::find(skipped.begin(), skipped.end(), v.countersNote) ==
            skipped.end())
          skipped.push_back(v.countersNote);
      } else if (!v.countersNote.empty()) {
        lines.push_back(id + ": " + v.countersNote);
      }
    }
  lines.insert(lines.end(), skipped.begin(), skipped.end());
  return lines;
}

std::vector<std::string> pairedLines(const BenchReport &report) {
  std::vector<std::string> lines;
  for (const Benchmark &b : report.benchmarks)
    for (const PairedComparison &p : b.paired) {
      char text[160];
      std::snprintf(text, sizeof text,
                    " %s: %.3fx the baseline [%.3f, %.3f], %s (%llu pairs, "
                    "threshold %.1f%%)",
                    toString(p.mode), p.ratio, p.low, p.high, p.verdict.c_str(),
                    (unsigned long long)p.pairs, 100 * p.threshold);
      lines.push_back(b.name + text);
    }
  return lines;
}

namespace {
/// What ended sampling before the minimum, and what to do about it.
std::string stoppedBy(StopReason reason) {
  switch (reason) {
  case StopReason::Timeout:
    return "stopped at the time limit (--timeout, per benchmark and shared "
           "by its modes; " +
           formatNumber(bench::kQuickTimeoutS, 0) +
           " s with --quick): raise --timeout";
  case StopReason::Budget:
    return "stopped when the run's --budget ran out: raise --budget or "
           "narrow --filter";
  case StopReason::Interrupted:
    return "stopped by an interrupt";
  case StopReason::Error:
    return "stopped by an error";
  default: // --min-samples below the minimum
    return "--min-samples asked for no more (" + std::string(toString(reason)) +
           ")";
  }
}
} // namespace

std::string stoppedShortWhy(const Timing &t) {
  if (t.samples.size() >= kMinSamplesForVerdict)
    return "";
  return std::to_string(t.samples.size()) + " sample(s) < " +
         std::to_string(kMinSamplesForVerdict) + ": " + stoppedBy(t.stopReason);
}

std::vector<std::string> stoppedShortLines(const BenchReport &report) {
  std::vector<std::string> lines;
  for (const ReportRow &row : reportRows(report))
    if (row.timed())
      if (std::string why = stoppedShortWhy(*row.timing); !why.empty())
        lines.push_back(row.id + ": " + why);
  return lines;
}

std::string ReportRow::verdict() const {
  if (variant && variant->correctness.status == CorrectnessStatus::Incorrect)
    return "incorrect";
  if (timed())
    return "ok";
  if (benchmark->status != BenchStatus::Ok)
    return toString(benchmark->status);
  return timing ? "no-samples" : "not-timed";
}

std::vector<ReportRow> reportRows(const BenchReport &report) {
  std::vector<ReportRow> rows;
  for (const Benchmark &b : report.benchmarks) {
    if (b.variants.empty())
      rows.push_back({b.name, &b, nullptr, nullptr});
    for (const Variant &v : b.variants) {
      if (v.timings.empty())
        rows.push_back({b.name + "/" + v.name, &b, &v, nullptr});
      for (const Timing &t : v.timings)
        rows.push_back(
            {b.name + "/" + v.name + "/" + toString(t.mode), &b, &v, &t});
    }
  }
  return rows;
}

namespace {
struct Unit {
  double scale;
  const char *name;
};
Unit unitFor(double ns) {
  static const Unit units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
  for (const Unit &u : units)
    if (std::fabs(ns) >= u.scale)
      return u;
  return {1, "ns"};
}
int decimalsFor(double v) {
  return std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
}
} // namespace

std::string formatDuration(double ns) {
  Unit u = unitFor(ns);
  double v = ns / u.scale;
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f %s", decimalsFor(v), v, u.name);
  return buf;
}

std::string formatMedianIqr(double medianNs, double iqrNs) {
  Unit u = unitFor(medianNs);
  double m = medianNs / u.scale;
  int decimals = decimalsFor(m);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f \u00b1 %.*f %s", decimals, m, decimals,
                iqrNs / u.scale, u.name);
  return buf;
}

std::string formatNumber(std::optional<double> value, int decimals) {
  if (!value)
    return "-";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, *value);
  return buf;
}

} // namespace kb::report
