//===- workbench/report/csv_format.cpp - report.csv -----------------------===//
//
// RFC 4180 CSV, one line per row of report_rows.h, plain numbers in base
// units (ns, bytes, GB/s) so spreadsheets and pandas need no parsing of
// "12.3 us"; an unknown value is an empty field. Text fields (names,
// reasons, the device) are not ours: one that a spreadsheet would run as a
// formula (it starts with = + - @, a tab or a CR) gets a leading `'`, the
// OWASP rule; numbers are written by us and stay numbers.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/report_formats.h"
#include "workbench/report/report_rows.h"
#include "workbench/report/sweep_charts.h"

#include <cstdio>
#include <sstream>
#include <string_view>

namespace kb::report {

namespace {

std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos)
    return text;
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// A text field a spreadsheet shows as text, never evaluates.
std::string text(const std::string &value) {
  if (!value.empty() &&
      std::string_view("=+-@\t\r").find(value.front()) != std::string::npos)
    return "'" + value;
  return value;
}

std::string number(std::optional<double> value) {
  if (!value)
    return "";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", *value);
  return buf;
}

} // namespace

std::string renderCsv(const BenchReport &report) {
  std::ostringstream out;
  out << "benchmark,variant,role,mode,status,correctness,reason,samples,"
         "discarded,dispatches_per_sample,median_ns,q1_ns,q3_ns,iqr_ns,"
         "min_ns,max_ns,mean_ns,stdev_ns,relative_stdev,bytes_moved,flops,"
         "gb_per_s,gflop_per_s,percent_of_peak,speedup_vs_reference,"
         "noise_target_met,stop_reason,device,registers,spill_store_bytes,"
         "spill_load_bytes,stack_frame_bytes,shared_memory_bytes,sweep\r\n";
  for (const ReportRow &row : reportRows(report)) {
    const Variant *v = row.variant;
    std::vector<std::string> f = {
        text(row.benchmark->name),
        text(v ? v->name : ""),
        v ? toString(v->role) : "",
        row.timing ? toString(row.timing->mode) : "",
        row.verdict(),
        v ? toString(v->correctness.status) : "",
        text(row.benchmark->reason),
    };
    if (row.timed()) {
      const Timing &t = *row.timing;
      const Summary &s = t.summary;
      const Derived &d = t.derived;
      for (double x : {double(t.samples.size()), double(t.discarded),
                       double(t.dispatchesPerSample), s.median, s.q1, s.q3,
                       s.iqr, s.min, s.max, s.mean, s.stdev, s.relativeStdev})
        f.push_back(number(x));
      f.push_back(v->bytesMoved ? std::to_string(*v->bytesMoved) : "");
      for (std::optional<double> x : {v->flops, d.gbPerSecond, d.gflopPerSecond,
                                      d.percentOfPeak, d.speedupVsReference})
        f.push_back(number(x));
      f.push_back(t.noiseTargetMet ? "true" : "false");
      f.push_back(toString(t.stopReason));
    } else {
      f.resize(f.size() + 20);
    }
    f.push_back(text(report.device.name));
    // ptxas's resource usage of the variant; empty when unknown.
    std::optional<ResourceUsage> r = v ? v->resources : std::nullopt;
    for (uint32_t x : {r ? r->registers : 0u, r ? r->spillStoreBytes : 0u,
                       r ? r->spillLoadBytes : 0u, r ? r->stackFrameBytes : 0u,
                       r ? r->sharedMemoryBytes : 0u})
      f.push_back(r ? std::to_string(x) : "");
    // The point of a `[bench] sweep` (`n=4096`), to plot against.
    f.push_back(sweepLabel(*row.benchmark));
    for (size_t i = 0; i < f.size(); ++i)
      out << (i ? "," : "") << csvField(f[i]);
    out << "\r\n";
  }
  return out.str();
}

} // namespace kb::report
