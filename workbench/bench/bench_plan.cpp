//===- workbench/bench/bench_plan.cpp - Which benchmarks a build holds ----===//
#include "workbench/bench/bench_plan.h"

#include "runtime/module/module.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {
/// The *.kbm files directly in |dir|, as |prefix|/NAME, sorted.
void addKbmFiles(const fs::path &dir, const std::string &prefix,
                 std::vector<std::string> &out) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".kbm" && entry.is_regular_file(ec))
      files.push_back(prefix + "/" + entry.path().filename().string());
  std::sort(files.begin(), files.end());
  out.insert(out.end(), files.begin(), files.end());
}

/// The standalone kernel of a module file relative to the build directory
/// ("standalone/KERNEL/bench/NAME.kbm"); empty for the program's.
std::string standaloneKernel(const std::string &file) {
  fs::path relative(file);
  auto part = relative.begin();
  if (part == relative.end() || *part != "standalone" ||
      ++part == relative.end())
    return "";
  return part->string();
}

void addModule(const std::string &path, const std::string &kernel, bool program,
               std::vector<PlannedBenchmark> &out) {
  auto module = module::loadModuleFile(path);
  if (!module.ok()) {
    out.push_back({fs::path(path).stem().string(), path, "",
                   module.status().message(), kernel});
    return;
  }
  if (program) {
    if (!module->entryFunction.empty())
      out.push_back({"program " + module->entryFunction, path, "", "", kernel});
    return;
  }
  for (const module::Benchmark &b : module->benchmarks)
    out.push_back({b.name, path, b.name, "", kernel});
}
} // namespace

std::vector<std::string> benchModuleFiles(const std::string &buildDir) {
  fs::path root(buildDir);
  std::vector<std::string> files;
  addKbmFiles(root / "bench", "bench", files);
  std::vector<std::string> standalone;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(root / "standalone", ec))
    if (entry.is_directory(ec))
      standalone.push_back(entry.path().filename().string());
  std::sort(standalone.begin(), standalone.end());
  for (const std::string &kernel : standalone)
    addKbmFiles(root / "standalone" / kernel / "bench",
                "standalone/" + kernel + "/bench", files);
  if (fs::is_regular_file(root / "program.kbm", ec))
    files.push_back("program.kbm");
  return files;
}

StatusOr<std::vector<PlannedBenchmark>>
planBenchmarks(const std::string &buildDir, const BenchSelection &select) {
  const std::string &filter = select.filter;
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
  for (const std::string &file : benchModuleFiles(buildDir))
    addModule((root / file).string(), standaloneKernel(file),
              file == "program.kbm", all);
  if (all.empty())
    return notFound(buildDir + " holds no benchmark module (bench/*.kbm, "
                               "standalone/*/bench/*.kbm) and no program.kbm; "
                               "build a project with a program or [bench] "
                               "kernels first");
  std::string unreadable;
  attachSweepPoints(buildDir, all, unreadable);
  if (select.sweep)
    KB_RETURN_IF_ERROR(selectSweep(*select.sweep, all, unreadable));
  std::vector<PlannedBenchmark> selected;
  for (PlannedBenchmark &p : all)
    if ((filter.empty() || std::regex_search(p.displayName, pattern)) &&
        !(select.dispatchesOnly && p.benchmark.empty() &&
          p.loadError.empty()) &&
        (select.kernels.empty() ||
         std::find(select.kernels.begin(), select.kernels.end(), p.kernel) !=
             select.kernels.end()))
      selected.push_back(std::move(p));
  return selected;
}

} // namespace kb::workbench
