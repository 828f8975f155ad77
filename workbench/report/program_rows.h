//===- workbench/report/program_rows.h - The whole program's rows ---------===//
//
// `bench` also times the whole program (ProgramResult): once with the
// substitutions and once with only the generated kernels. The terminal
// table ends with these rows; report.md, report.html and junit.xml show the
// same rows after the benchmarks' from here, so that no format has a
// program row another lacks. A program that did not run or failed is one
// row without a timing, as in the terminal table.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_PROGRAM_ROWS_H_
#define KB_WORKBENCH_REPORT_PROGRAM_ROWS_H_

#include "workbench/report/bench_results.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::report {

struct ProgramRow {
  std::string name;    // "program main"
  std::string variant; // "with substitutions", "generated only"; "-"
  /// The generated-only run: the program's reference.
  bool generatedOnly = false;
  const Timing *timing = nullptr; // null: the program has no usable timing
  BenchStatus status = BenchStatus::Ok;
  std::string reason; // why it failed or was skipped
  /// The substituted run's speedup over the generated-only run.
  std::optional<double> speedup;

  /// "program main/with substitutions/cold"; "program main" untimed.
  std::string id() const;
  /// report.md's word for the row: "correct" (the substituted run, its
  /// outputs checked against the generated one), "(reference)", or
  /// "INCORRECT", "ERROR", "skipped" for a program that failed.
  std::string statusWord() const;
};

/// The rows of |report|'s program, none when it has no program result.
/// Pointers stay valid while |report| lives.
std::vector<ProgramRow> programRows(const BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_PROGRAM_ROWS_H_
