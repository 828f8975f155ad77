//===- workbench/bench_plan.cpp - Which benchmarks a build holds ----------===//
#include "workbench/bench_plan.h"

#include "runtime/module/module.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {
std::vector<std::string> kbmFiles(const fs::path &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".kbm" && entry.is_regular_file(ec))
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

void addModule(const std::string &path, bool program,
               std::vector<PlannedBenchmark> &out) {
  auto module = module::loadModuleFile(path);
  if (!module.ok()) {
    out.push_back(
        {fs::path(path).stem().string(), path, "", module.status().message()});
    return;
  }
  if (program) {
    if (!module->entryFunction.empty())
      out.push_back({"program " + module->entryFunction, path, "", ""});
    return;
  }
  for (const module::Benchmark &b : module->benchmarks)
    out.push_back({b.name, path, b.name, ""});
}
} // namespace

StatusOr<std::vector<PlannedBenchmark>>
planBenchmarks(const std::string &buildDir, const std::string &filter) {
  std::regex pattern;
  try {
    pattern = std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error &e) {
    return invalidArgument("--filter `" + filter +
                           "` is not a valid regular expression: " + e.what());
  }
  fs::path root(buildDir);
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return notFound(buildDir +
                    " is not a directory; run `kernel-bench build "
                    "PROJECT -o " +
                    buildDir + "` first");
  std::vector<PlannedBenchmark> all;
  for (const std::string &file : kbmFiles(root / "bench"))
    addModule(file, false, all);
  std::vector<fs::path> standalone;
  for (const auto &entry : fs::directory_iterator(root / "standalone", ec))
    if (entry.is_directory(ec))
      standalone.push_back(entry.path());
  std::sort(standalone.begin(), standalone.end());
  for (const fs::path &dir : standalone)
    for (const std::string &file : kbmFiles(dir / "bench"))
      addModule(file, false, all);
  if (fs::is_regular_file(root / "program.kbm", ec))
    addModule((root / "program.kbm").string(), true, all);
  if (all.empty())
    return notFound(buildDir + " holds no benchmark module (bench/*.kbm, "
                               "standalone/*/bench/*.kbm) and no program.kbm; "
                               "build a project with a program or [bench] "
                               "kernels first");
  std::vector<PlannedBenchmark> selected;
  for (PlannedBenchmark &p : all)
    if (filter.empty() || std::regex_search(p.displayName, pattern))
      selected.push_back(std::move(p));
  return selected;
}

} // namespace kb::workbench
