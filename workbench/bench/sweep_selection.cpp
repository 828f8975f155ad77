//===- workbench/bench/sweep_selection.cpp - Which sweep points to run ----===//
#include "workbench/bench/sweep_selection.h"

#include "workbench/bench/bench_plan.h"
#include "workbench/build/declared_figures.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>

namespace kb::workbench {

namespace {

bool parseInteger(const std::string &text, int64_t &value) {
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

bool isName(const std::string &text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

} // namespace

StatusOr<SweepRange> parseSweepRange(const std::string &spec) {
  const std::string expected =
      "--sweep `" + spec +
      "`: expected NAME=LO:HI, a swept [bench] constant and the integer "
      "bounds of its values to run, LO <= HI (e.g. n=4096:1048576)";
  size_t eq = spec.find('=');
  if (eq == std::string::npos)
    return invalidArgument(expected);
  size_t colon = spec.find(':', eq);
  SweepRange range;
  range.name = spec.substr(0, eq);
  if (colon == std::string::npos || !isName(range.name) ||
      !parseInteger(spec.substr(eq + 1, colon - eq - 1), range.lo) ||
      !parseInteger(spec.substr(colon + 1), range.hi) || range.lo > range.hi)
    return invalidArgument(expected);
  return range;
}

void attachSweepPoints(const std::string &buildDir,
                       std::vector<PlannedBenchmark> &planned,
                       std::string &why) {
  StatusOr<DeclaredByObject> declared =
      readDeclaredFigures(std::filesystem::path(buildDir) / "build.json");
  if (!declared.ok()) {
    why = declared.status().message();
    return;
  }
  std::map<std::string, bench::SweepPoint> byKernel;
  for (const auto &[sha256, jobs] : *declared)
    for (const JobDeclared &job : jobs)
      if (!job.declared.sweep.empty())
        byKernel[job.kernel] = job.declared.sweep;
  for (PlannedBenchmark &p : planned)
    if (auto it = byKernel.find(p.kernel); it != byKernel.end())
      p.sweep = it->second;
}

Status selectSweep(const SweepRange &range,
                   std::vector<PlannedBenchmark> &planned,
                   const std::string &why) {
  std::vector<std::string> swept;
  for (const PlannedBenchmark &p : planned)
    for (const auto &[name, value] : p.sweep.values)
      if (std::find(swept.begin(), swept.end(), name) == swept.end())
        swept.push_back(name);
  if (std::find(swept.begin(), swept.end(), range.name) == swept.end()) {
    std::string names;
    for (const std::string &name : swept)
      names += (names.empty() ? "" : ", ") + name;
    return invalidArgument(
        "--sweep " + range.name + "=" + std::to_string(range.lo) + ":" +
        std::to_string(range.hi) + ": no benchmark of this build sweeps `" +
        range.name + "`; " +
        (names.empty() ? "none is swept (a kernel sweeps with [bench] sweep)" +
                             (why.empty() ? "" : " (" + why + ")")
                       : "swept: " + names));
  }
  auto outOfRange = [&](const PlannedBenchmark &p) {
    for (const auto &[name, value] : p.sweep.values)
      if (name == range.name)
        return value < range.lo || value > range.hi;
    return true;
  };
  planned.erase(std::remove_if(planned.begin(), planned.end(), outOfRange),
                planned.end());
  return okStatus();
}

} // namespace kb::workbench
