//===- workbench/inspect/inspect_benchmarks.cpp - A build's benchmarks ----===//
#include "workbench/inspect/inspect_benchmarks.h"

#include "workbench/bench/bench_plan.h"
#include "workbench/support/spelling.h"

#include <filesystem>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

Status checkBuildDirectory(const std::string &buildDir) {
  std::error_code ec;
  fs::file_status status = fs::status(buildDir, ec);
  if (!fs::exists(status))
    return notFound(buildDir +
                    ": no such directory; expected the output directory of "
                    "`kernel-bench build` (build the project first: "
                    "`kernel-bench build PROJECT -o " +
                    buildDir + "`)");
  if (!fs::is_directory(status))
    return invalidArgument(buildDir +
                           " is not a directory; expected the output "
                           "directory of `kernel-bench build`");
  return okStatus();
}

/// The benchmark modules of |buildDir|: bench's list without the programs
/// (their whole-program benchmark has no single executable to inspect).
std::vector<std::string> dispatchModules(const std::string &buildDir) {
  std::vector<std::string> files;
  for (const std::string &file : benchModuleFiles(buildDir))
    if (fs::path(file).filename() != "program.kbm")
      files.push_back(file);
  return files;
}

/// Every benchmark of the module at |file| (under |buildDir|).
StatusOr<std::vector<LoadedBenchmark>> benchmarksOf(const std::string &buildDir,
                                                    const std::string &file) {
  std::string path = (fs::path(buildDir) / file).string();
  StatusOr<module::Module> parsed = module::loadModuleFile(path);
  if (!parsed.ok()) {
    // The loader says what is wrong with the file; say how to get a good one
    // where it does not.
    const std::string &why = parsed.status().message();
    return why.find("rebuild") != std::string::npos
               ? parsed.status()
               : Status(parsed.status().code(),
                        why + " (rebuild it with `kernel-bench build`)");
  }
  auto shared = std::make_shared<const module::Module>(std::move(*parsed));
  std::vector<LoadedBenchmark> out;
  for (const module::Benchmark &b : shared->benchmarks) {
    const module::Op &op = shared->functions[b.function].ops[b.dispatchOp];
    out.push_back({b.name, path, shared, op.executable, op.exportIndex});
  }
  return out;
}

Status unknownBenchmark(const std::string &buildDir, const std::string &name,
                        const std::vector<LoadedBenchmark> &all) {
  std::vector<std::string> names;
  std::string list;
  for (const LoadedBenchmark &b : all) {
    names.push_back(b.name);
    list += (list.empty() ? "" : ", ") + b.name;
  }
  std::optional<std::string> near = nearestSpelling(name, names);
  return notFound("no benchmark `" + name + "` in " + buildDir +
                  (near ? " (did you mean `" + *near + "`?)" : "") +
                  "; its benchmarks: " + list);
}

} // namespace

StatusOr<std::vector<LoadedBenchmark>>
loadBenchmarks(const std::string &buildDir, const std::string &benchmark) {
  KB_RETURN_IF_ERROR(checkBuildDirectory(buildDir));
  std::vector<std::string> files = dispatchModules(buildDir);
  if (files.empty())
    return notFound(buildDir +
                    " holds no benchmark module (bench/*.kbm, "
                    "standalone/*/bench/*.kbm); build a project with a "
                    "program or [bench] kernels, without --kernels-only");
  std::vector<LoadedBenchmark> all;
  for (const std::string &file : files) {
    KB_ASSIGN_OR_RETURN(std::vector<LoadedBenchmark> some,
                        benchmarksOf(buildDir, file));
    all.insert(all.end(), some.begin(), some.end());
  }
  if (benchmark.empty())
    return all;
  for (const LoadedBenchmark &b : all)
    if (b.name == benchmark)
      return std::vector<LoadedBenchmark>{b};
  return unknownBenchmark(buildDir, benchmark, all);
}

} // namespace kb::workbench
