//===- workbench/report/gbench_format.cpp - gbench.json -------------------===//
//
// Google Benchmark's JSON (json_reporter.cc, json_schema_version 1), so
// that its tools/compare.py reads our results: one "iteration" entry per
// sample (a repetition, real_time = GPU time as with UseManualTime, hence
// the "/manual_time" suffix gbench gives such runs; cpu_time = host time;
// iterations = dispatches per sample) followed by the mean, median, stddev
// and cv aggregates. Device identity and clocks go into "context" as
// strings, the only place gbench has for them. Rows with no timing (error,
// skipped, incorrect) are listed in context["kb_not_timed"]: compare.py
// needs a time in every entry, and a zero would poison its geomean.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/report_formats.h"
#include "workbench/report/report_rows.h"
#include "workbench/report/strict_json.h"

#include <cmath>

using json = nlohmann::ordered_json;

namespace kb::report {

namespace {

json contextJson(const BenchReport &r, const std::vector<ReportRow> &rows) {
  std::string notTimed;
  for (const ReportRow &row : rows)
    if (!row.timed())
      notTimed +=
          (notTimed.empty() ? "" : "; ") + row.id + ": " + row.verdict();
  auto text = [](std::optional<double> v) {
    return v ? formatNumber(v, 1) : std::string("unknown");
  };
  return {{"date", r.createdUtc},
          {"executable", r.tool.name},
          {"library_version", r.tool.version},
          {"library_build_type", "release"},
          {"json_schema_version", 1},
          {"kb_device", r.device.name},
          {"kb_driver", r.device.driver},
          {"kb_driver_version", r.device.driverVersion},
          {"kb_device_uuid", r.device.uuid},
          {"kb_l2_bytes", std::to_string(r.device.l2Bytes)},
          {"kb_peak_copy_gbps", text(r.device.peakCopyGBps)},
          {"kb_peak_fma_gflops", text(r.device.peakFmaGflops)},
          {"kb_sm_clock_mhz", text(r.environment.smClockMHz)},
          {"kb_quick", r.settings.quick ? "true" : "false"},
          {"kb_interrupted", r.interrupted ? "true" : "false"},
          {"kb_not_timed", notTimed}};
}

/// Fields every entry of one row shares.
json entryBase(const ReportRow &row, size_t family, size_t instance) {
  std::string runName = row.id + "/manual_time";
  return {{"name", runName},
          {"family_index", family},
          {"per_family_instance_index", instance},
          {"run_name", runName},
          {"label", row.benchmark->workload}};
}

void addCounters(json &entry, const Variant &v, double gpuNs) {
  if (gpuNs <= 0)
    return;
  if (v.bytesMoved)
    entry["bytes_per_second"] = double(*v.bytesMoved) / (gpuNs * 1e-9);
  if (v.flops)
    entry["FLOPS"] = *v.flops / (gpuNs * 1e-9);
}

void addRow(json &benchmarks, const ReportRow &row, size_t family,
            size_t instance) {
  const Timing &t = *row.timing;
  size_t n = t.samples.size();
  for (size_t i = 0; i < n; ++i) {
    json e = entryBase(row, family, instance);
    e["run_type"] = "iteration";
    e["repetitions"] = n;
    e["repetition_index"] = i;
    e["threads"] = 1;
    e["iterations"] = t.dispatchesPerSample;
    e["real_time"] = t.samples[i].gpuNs;
    e["cpu_time"] = t.samples[i].hostNs;
    e["time_unit"] = "ns";
    addCounters(e, *row.variant, t.samples[i].gpuNs);
    benchmarks.push_back(std::move(e));
  }
  std::vector<double> host;
  for (const Sample &s : t.samples)
    host.push_back(s.hostNs);
  Summary gpu = t.summary, cpu = summarize(host);
  struct Aggregate {
    const char *name;
    double real, cpu;
    bool percentage;
  } aggregates[] = {{"mean", gpu.mean, cpu.mean, false},
                    {"median", gpu.median, cpu.median, false},
                    {"stddev", gpu.stdev, cpu.stdev, false},
                    {"cv", gpu.relativeStdev, cpu.relativeStdev, true}};
  for (const Aggregate &a : aggregates) {
    json e = entryBase(row, family, instance);
    e["name"] = e["run_name"].get<std::string>() + "_" + a.name;
    e["run_type"] = "aggregate";
    e["repetitions"] = n;
    e["threads"] = 1;
    e["aggregate_name"] = a.name;
    e["aggregate_unit"] = a.percentage ? "percentage" : "time";
    e["iterations"] = n;
    e["real_time"] = a.real;
    e["cpu_time"] = a.cpu;
    e["time_unit"] = "ns";
    if (!a.percentage && std::string(a.name) != "stddev")
      addCounters(e, *row.variant, a.real);
    benchmarks.push_back(std::move(e));
  }
}

} // namespace

StatusOr<std::string> renderGBenchJson(const BenchReport &report) {
  std::vector<ReportRow> rows = reportRows(report);
  json benchmarks = json::array();
  const Benchmark *family = nullptr;
  size_t familyIndex = 0, instance = 0;
  for (const ReportRow &row : rows) {
    if (row.benchmark != family) {
      familyIndex += family != nullptr;
      family = row.benchmark;
      instance = 0;
    }
    if (row.timed())
      addRow(benchmarks, row, familyIndex, instance++);
  }
  json doc = {{"context", contextJson(report, rows)},
              {"benchmarks", std::move(benchmarks)}};
  return dumpStrictJson(doc, 2, "gbench.json");
}

} // namespace kb::report
