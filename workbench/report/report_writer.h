//===- workbench/report/report_writer.h - Every report format -------------===//
//
// The one report writer: renders a BenchReport into each output format and
// writes them into a directory. `kernel-bench bench` calls writeReports once
// with every format; `kernel-bench report` regenerates them from a
// bench.json. All formats are rendered before any file is written, and each
// file is written atomically, so a failure leaves no half-written set.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_REPORT_WRITER_H_
#define KB_WORKBENCH_REPORT_REPORT_WRITER_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::report {

enum class ReportFormat {
  BenchJson, // bench.json: everything (docs/bench-json.md)
  GBench,    // gbench.json: Google Benchmark's JSON, for its compare.py
  Markdown,  // report.md: terminal and $GITHUB_STEP_SUMMARY table
  Csv,       // report.csv: one line per row of report_rows.h
  JUnit,     // junit.xml: one test case per benchmark and variant
  Html,      // report.html: self-contained page with inline SVG charts
};

/// Every format, in the order above.
std::vector<ReportFormat> allReportFormats();

/// The format's name on the command line ("json", "gbench", "md", "csv",
/// "junit", "html") and its file name in the output directory.
const char *formatName(ReportFormat format);
const char *fileName(ReportFormat format);
std::optional<ReportFormat> parseReportFormat(std::string_view name);

/// One format's text.
StatusOr<std::string> renderReport(const BenchReport &report,
                                   ReportFormat format);

/// Renders |formats| and writes each to |dir|/fileName(format); returns the
/// paths written.
StatusOr<std::vector<std::filesystem::path>>
writeReports(const BenchReport &report, const std::filesystem::path &dir,
             const std::vector<ReportFormat> &formats);

/// InvalidArgument when writing |formats| into |dir| would replace one of
/// |inputs| (the same file by device and inode, however it is spelled):
/// `merge -o s0 s0/bench.json ...` must not destroy its own input.
Status checkOutputsAreNotInputs(const std::filesystem::path &dir,
                                const std::vector<ReportFormat> &formats,
                                const std::vector<std::string> &inputs);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_REPORT_WRITER_H_
