//===- workbench/report/report_rows.h - One row per thing timed -----------===//
//
// Every report format and `compare` see a BenchReport as the same flat list
// of rows: one per (benchmark, variant, timing mode), plus one row for a
// benchmark or variant that produced no timing (error, skipped, incorrect),
// so that nothing is silently dropped. A row's id, "benchmark/variant/mode",
// is how formats name it and how `compare` pairs two reports.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_REPORT_ROWS_H_
#define KB_WORKBENCH_REPORT_REPORT_ROWS_H_

#include "workbench/report/bench_results.h"

#include <string>
#include <vector>

namespace kb::report {

struct ReportRow {
  std::string id; // "saxpy/candidate/cold"; "saxpy" when no variant ran
  const Benchmark *benchmark = nullptr;
  const Variant *variant = nullptr; // null when the benchmark has none
  const Timing *timing = nullptr;   // null when nothing was timed
  /// Has at least one accepted sample.
  bool timed() const { return timing && !timing->samples.empty(); }
  /// "ok", or why this row has no usable timing ("incorrect", "error", ...).
  std::string verdict() const;
};

/// The correctness word report.md and report.html show for |row|:
/// "correct", "INCORRECT", "ERROR", "skipped", "no reference", "not
/// checked", or "(reference)" for the reference kernel itself.
std::string correctnessWord(const ReportRow &row);

/// A benchmark's status as every table shows it: "ok", or the failure in
/// capitals ("INCORRECT", "ERROR", "SKIPPED", "SANITIZER").
std::string statusWord(BenchStatus status);

/// A `bench --sanitize` run's findings, one line each: "saxpy_4096x1x1:
/// candidate (inputs seed +0): error: Descriptor index 0 access out of
/// bounds ..."; at most |maxPerBenchmark| per benchmark, then how many
/// more.
std::vector<std::string> sanitizerLines(const BenchReport &report,
                                        size_t maxPerBenchmark);

/// Rows in report order. Pointers stay valid while |report| lives.
std::vector<ReportRow> reportRows(const BenchReport &report);

/// "12.3 us", "1.50 ms", "850 ns": 3 significant digits, unit by size.
std::string formatDuration(double ns);
/// "12.3 ± 0.4 us": the IQR in the median's unit.
std::string formatMedianIqr(double medianNs, double iqrNs);
/// Fixed |decimals|, or "-" for none.
std::string formatNumber(std::optional<double> value, int decimals);

/// What identifies the device a report was measured on, for the human
/// formats: "vulkan cpu, vendor 0x10005, device 0x0000, UUID 6d65...,
/// driver Mesa 22.3.6" (unknown parts left out).
std::string describeDeviceIdentity(const DeviceInfo &device);
/// The device a report ran on, as its heading: "NAME (DRIVER)", or "no
/// device (no benchmark reached one)" for a report where nothing ran (every
/// benchmark skipped, a shard with no benchmarks), instead of an empty "()".
std::string deviceHeading(const DeviceInfo &device);
/// Whether a report records no device at all.
bool noDevice(const DeviceInfo &device);
/// ptxas's resource usage: "40 registers, 0 B spill stores, 0 B spill
/// loads, 16 B stack, 1024 B shared memory".
std::string describeResources(const ResourceUsage &resources);
/// One line per variant whose resources are known, in report order:
/// "saxpy/candidate (cuda:sm_90): 40 registers, ...".
std::vector<std::string> resourceLines(const BenchReport &report);
/// `bench --counters`: one line per variant with counters, "saxpy/candidate:
/// DRAM 8.39 MB read, 4.19 MB written; achieved occupancy 87.5%; SM
/// throughput 12.3%; 1 kernel, 9.1 us (8 passes)", one per variant whose
/// counting failed ("saxpy/reference: failed: ..."), and each distinct
/// "skipped: ..." reason once (a host that refuses counters refuses all).
std::vector<std::string> counterLines(const BenchReport &report);
/// Why |t| has fewer samples than a verdict needs (kMinSamplesForVerdict):
/// "3 samples < 10: stopped at the time limit (--timeout, 10 s per
/// benchmark with --quick, shared by its modes)"; empty when it has enough.
std::string stoppedShortWhy(const Timing &t);
/// One line per timed row that stopped short: "<id>: <stoppedShortWhy>".
std::vector<std::string> stoppedShortLines(const BenchReport &report);

/// One line per paired comparison (`bench --baseline`): "saxpy cold:
/// 1.250x the baseline [1.200, 1.300], SLOWER (40 pairs, δ 2.0%)".
std::vector<std::string> pairedLines(const BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_REPORT_ROWS_H_
