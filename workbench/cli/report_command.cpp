//===- workbench/cli/report_command.cpp - `kernel-bench report` -----------===//
//
// Regenerates the report formats (report_writer.h) from a bench.json:
// `kernel-bench report BENCH_JSON [--format F]... [-o DIR]`. Exit 4 when the
// bench.json cannot be read or is not ours (docs/cli.md), 1 when a file
// cannot be written, 2 when an output would replace the input.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include "workbench/report/bench_json.h"
#include "workbench/report/report_writer.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

struct ReportArgs {
  std::string input;
  std::vector<std::string> formats;
  std::string outputDir;
};

/// The formats to write: the named ones, or every derived format.
std::vector<report::ReportFormat> chosenFormats(const ReportArgs &args) {
  std::vector<report::ReportFormat> out;
  for (const std::string &name : args.formats)
    out.push_back(*report::parseReportFormat(name)); // validated by CLI11
  if (out.empty())
    for (report::ReportFormat f : report::allReportFormats())
      if (f != report::ReportFormat::BenchJson)
        out.push_back(f);
  return out;
}

int runReport(const ReportArgs &args) {
  StatusOr<report::BenchReport> bench = report::readBenchJson(args.input);
  if (!bench.ok()) {
    std::fprintf(stderr, "kernel-bench report: error: %s\n",
                 bench.status().message().c_str());
    return kExitBadInput;
  }
  std::filesystem::path dir =
      args.outputDir.empty() ? std::filesystem::path(args.input).parent_path()
                             : std::filesystem::path(args.outputDir);
  if (dir.empty())
    dir = ".";
  std::vector<report::ReportFormat> formats = chosenFormats(args);
  Status clobbers =
      report::checkOutputsAreNotInputs(dir, formats, {args.input});
  if (!clobbers.ok()) {
    std::fprintf(stderr, "kernel-bench report: error: %s\n",
                 clobbers.message().c_str());
    return kExitUsage;
  }
  auto written = report::writeReports(*bench, dir, formats);
  if (!written.ok()) {
    std::fprintf(stderr, "kernel-bench report: error: %s\n",
                 written.status().message().c_str());
    return kExitUserError;
  }
  for (const std::filesystem::path &p : *written)
    std::printf("wrote %s\n", p.string().c_str());
  return kExitOk;
}

} // namespace

CommandRegistration addReportCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "report", "Render a bench.json as gbench.json, report.md, report.csv, "
                "junit.xml and report.html");
  auto args = std::make_shared<ReportArgs>();
  app->add_option("bench_json", args->input,
                  "The bench.json written by kernel-bench bench")
      ->type_name("FILE")
      ->required();
  std::string names;
  for (report::ReportFormat f : report::allReportFormats())
    names += std::string(names.empty() ? "" : "|") + report::formatName(f);
  app->add_option("--format", args->formats,
                  "Formats to write (" + names +
                      "; repeatable or comma-separated); default: all but "
                      "json")
      ->delimiter(',')
      ->check([](const std::string &name) -> std::string {
        return report::parseReportFormat(name)
                   ? ""
                   : "unknown format '" + name + "'";
      });
  app->add_option("-o,--output-dir", args->outputDir,
                  "Directory to write into (default: the bench.json's "
                  "directory)")
      ->type_name("DIR");
  return {app, [args]() { return runReport(*args); }};
}

} // namespace kb::workbench
