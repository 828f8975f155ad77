//===- workbench/report/report_writer.cpp - Every report format -----------===//
#include "workbench/report/report_writer.h"

#include "common/file_util.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/report_formats.h"

namespace kb::report {

namespace {
struct FormatInfo {
  ReportFormat format;
  const char *name;
  const char *file;
};
constexpr FormatInfo kFormats[] = {
    {ReportFormat::BenchJson, "json", "bench.json"},
    {ReportFormat::GBench, "gbench", "gbench.json"},
    {ReportFormat::Markdown, "md", "report.md"},
    {ReportFormat::Csv, "csv", "report.csv"},
    {ReportFormat::JUnit, "junit", "junit.xml"},
    {ReportFormat::Html, "html", "report.html"},
};
const FormatInfo &info(ReportFormat format) {
  for (const FormatInfo &i : kFormats)
    if (i.format == format)
      return i;
  return kFormats[0];
}
} // namespace

std::vector<ReportFormat> allReportFormats() {
  std::vector<ReportFormat> all;
  for (const FormatInfo &i : kFormats)
    all.push_back(i.format);
  return all;
}

const char *formatName(ReportFormat format) { return info(format).name; }
const char *fileName(ReportFormat format) { return info(format).file; }

std::optional<ReportFormat> parseReportFormat(std::string_view name) {
  for (const FormatInfo &i : kFormats)
    if (name == i.name)
      return i.format;
  return std::nullopt;
}

StatusOr<std::string> renderReport(const BenchReport &report,
                                   ReportFormat format) {
  switch (format) {
  case ReportFormat::BenchJson:
    return renderBenchJson(report);
  case ReportFormat::GBench:
    return renderGBenchJson(report);
  case ReportFormat::Markdown:
    return renderMarkdown(report);
  case ReportFormat::Csv:
    return renderCsv(report);
  case ReportFormat::JUnit:
    return renderJUnit(report);
  case ReportFormat::Html:
    return renderHtml(report);
  }
  return internalError("unknown report format");
}

StatusOr<std::vector<std::filesystem::path>>
writeReports(const BenchReport &report, const std::filesystem::path &dir,
             const std::vector<ReportFormat> &formats) {
  std::vector<std::string> texts;
  for (ReportFormat f : formats) {
    KB_ASSIGN_OR_RETURN(std::string text, renderReport(report, f));
    texts.push_back(std::move(text));
  }
  std::vector<std::filesystem::path> written;
  for (size_t i = 0; i < formats.size(); ++i) {
    std::filesystem::path path = dir / fileName(formats[i]);
    KB_RETURN_IF_ERROR(kb::writeFileAtomic(path, texts[i])
                           .withContext("cannot write the report"));
    written.push_back(path);
  }
  return written;
}

Status checkOutputsAreNotInputs(const std::filesystem::path &dir,
                                const std::vector<ReportFormat> &formats,
                                const std::vector<std::string> &inputs) {
  for (ReportFormat f : formats) {
    std::filesystem::path output = dir / fileName(f);
    for (const std::string &input : inputs) {
      std::error_code ec;
      if (std::filesystem::equivalent(output, input, ec))
        return invalidArgument(
            "the output `" + output.string() + "` is the input `" + input +
            "`: writing it would replace the report being read; write "
            "into another directory (-o)");
    }
  }
  return okStatus();
}

} // namespace kb::report
