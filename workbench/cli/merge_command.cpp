//===- workbench/cli/merge_command.cpp - `kernel-bench merge` -------------===//
//
//   kernel-bench merge A.json B.json ... -o OUT/bench.json
//     [--allow-different-builds] [--allow-different-devices] [--allow-missing]
//
// One report from the shards' reports (report/merge.h), written with every
// report format through the one report writer. Exit codes (docs/cli.md):
// 0 written; 1 a file could not be written; 2 usage (also an output that
// would replace an input); 4 an input is
// unreadable, or the inputs do not belong together (different builds or
// devices, overlapping or missing shards).
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include "workbench/report/bench_json.h"
#include "workbench/report/merge.h"
#include "workbench/report/report_writer.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  report::MergeOptions options;
};

/// -o names bench.json (the other formats go beside it) or a directory.
StatusOr<fs::path> outputDir(const std::string &output) {
  fs::path path(output);
  if (path.extension() != ".json")
    return path;
  if (path.filename() != "bench.json")
    return invalidArgument("-o " + output +
                           ": the report formats are written with fixed "
                           "names (bench.json, report.md, ...); give a "
                           "directory or DIR/bench.json");
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

int runMerge(const MergeArgs &args) {
  StatusOr<fs::path> dir = outputDir(args.output);
  if (!dir.ok()) {
    std::fprintf(stderr, "kernel-bench merge: error: %s\n",
                 dir.status().message().c_str());
    return kExitUsage;
  }
  Status clobbers = report::checkOutputsAreNotInputs(
      *dir, report::allReportFormats(), args.inputs);
  if (!clobbers.ok()) {
    std::fprintf(stderr, "kernel-bench merge: error: %s\n",
                 clobbers.message().c_str());
    return kExitUsage;
  }
  std::vector<report::MergeInput> inputs;
  for (const std::string &path : args.inputs) {
    StatusOr<report::BenchReport> r = report::readBenchJson(path);
    if (!r.ok()) {
      std::fprintf(stderr, "kernel-bench merge: error: %s\n",
                   r.status().message().c_str());
      return kExitBadInput;
    }
    inputs.push_back({path, std::move(*r)});
  }
  size_t count = inputs.size();
  auto merged = report::mergeReports(std::move(inputs), args.options);
  if (!merged.ok()) {
    std::fprintf(stderr, "kernel-bench merge: error: %s\n",
                 merged.status().message().c_str());
    return kExitBadInput;
  }
  merged->merged.tool.version = KB_VERSION_STRING;
  std::error_code ec;
  fs::create_directories(*dir, ec);
  auto written =
      report::writeReports(merged->merged, *dir, report::allReportFormats());
  if (!written.ok()) {
    std::fprintf(stderr, "kernel-bench merge: error: %s\n",
                 written.status().message().c_str());
    return kExitUserError;
  }
  for (const std::string &m : merged->missing)
    std::fprintf(stderr, "kernel-bench merge: warning: missing %s\n",
                 m.c_str());
  std::printf("merged %zu report(s): %zu benchmark(s)%s into %s\n", count,
              merged->merged.benchmarks.size(),
              merged->merged.program ? " + the program" : "",
              (*dir / "bench.json").string().c_str());
  return kExitOk;
}

} // namespace

CommandRegistration addMergeCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "merge", "Merge the bench.json reports of a sharded run into one "
               "report, written in every report format");
  auto args = std::make_shared<MergeArgs>();
  app->add_option("reports", args->inputs,
                  "The shards' bench.json files (any order)")
      ->type_name("FILE")
      ->required()
      ->expected(1, -1);
  app->add_option("-o,--output", args->output,
                  "DIR or DIR/bench.json: where the merged bench.json and "
                  "the other formats go")
      ->type_name("PATH")
      ->required();
  app->add_flag("--allow-different-builds", args->options.allowDifferentBuilds,
                "Merge reports of different builds (build.json sha256)");
  app->add_flag("--allow-different-devices",
                args->options.allowDifferentDevices,
                "Merge reports from different device models");
  app->add_flag("--allow-missing", args->options.allowMissing,
                "Merge even when shards are missing (they are listed as "
                "warnings in the report)");
  return {app, [args]() { return runMerge(*args); }};
}

} // namespace kb::workbench
