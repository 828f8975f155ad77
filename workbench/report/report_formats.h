//===- workbench/report/report_formats.h - Format renderers ---------------===//
//
// One renderer per format, one file each; report_writer.cpp is their only
// caller (private to workbench/report/).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_REPORT_FORMATS_H_
#define KB_WORKBENCH_REPORT_REPORT_FORMATS_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <string>

namespace kb::report {

StatusOr<std::string> renderGBenchJson(const BenchReport &report);
std::string renderMarkdown(const BenchReport &report);
std::string renderCsv(const BenchReport &report);
std::string renderJUnit(const BenchReport &report);
std::string renderHtml(const BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_REPORT_FORMATS_H_
