//===- workbench/report/synthetic_report.h - Reports for tests ------------===//
//
// Builds BenchReport values with known properties (a chosen median, noise
// and sample count per benchmark) for the report, compare and scale tests,
// through the model rather than hand-written JSON. Deterministic for a seed.
// Test and bench/ support only; kernel-bench never links it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_SYNTHETIC_REPORT_H_
#define KB_WORKBENCH_REPORT_SYNTHETIC_REPORT_H_

#include "workbench/report/bench_results.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kb::report {

struct SyntheticBenchmark {
  std::string name;
  double medianNs = 1000;
  double relativeNoise = 0.01; // stdev / median of the candidate's samples
  bool withReference = true;   // adds a reference variant
  BenchStatus status = BenchStatus::Ok;
  double referenceScale = 1.5; // the reference's median / the candidate's
};

struct SyntheticSpec {
  std::vector<SyntheticBenchmark> benchmarks;
  uint32_t samples = 30;
  uint64_t seed = 1;
  std::string deviceName = "Synthetic GPU";
};

/// A complete report (device, settings, summaries and derived figures
/// filled in the way `bench` fills them).
BenchReport makeSyntheticReport(const SyntheticSpec &spec);

/// Candidate-only benchmarks |names| with medians 2 us x 5^i x |scale|.
SyntheticSpec scaledSpec(const std::vector<std::string> &names, double scale,
                         double relativeNoise, uint64_t seed, uint32_t samples);

/// One benchmark of each kind: "saxpy" and "reduce|sum" ok with references,
/// "wrong" INCORRECT, "hang" ERROR, "big" skipped.
BenchReport makeMixedReport(uint32_t samples);

/// Pieces of text that report formats and terminals treat specially:
/// formula starters, Markdown and HTML punctuation, control characters
/// and escape sequences, U+FFFE/U+FFFF, bidi overrides, invalid UTF-8, NUL.
/// Random hostile names are drawn from them (report_hostile_test).
const std::vector<std::string_view> &hostileTextPieces();

/// The fixed corpus of hostile names the report consumers are fed
/// (cli_report_test): every piece alone, then whole payloads (markup and
/// script that would log to a browser's console if it ever ran, formulas,
/// closing tags, a terminal title sequence).
std::vector<std::string> hostileNameCorpus();

/// |count| benchmarks named "bench_00000"... with medians spread over
/// 1 us .. 10 ms and |relativeNoise|.
std::vector<SyntheticBenchmark> syntheticBenchmarks(size_t count,
                                                    double relativeNoise);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_SYNTHETIC_REPORT_H_
