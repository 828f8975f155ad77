//===- workbench/inspect/inspect_engine.cpp - `inspect`, the engine -------===//
#include "workbench/inspect/inspect_engine.h"

#include "workbench/inspect/inspect_variant.h"
#include "workbench/inspect/inspect_why.h"
#include "workbench/inspect/inspect_writer.h"

#include <algorithm>

namespace kb::workbench {
namespace {

/// The target's inspection in |targets|, added when new.
TargetInspection &targetFor(std::vector<TargetInspection> &targets,
                            const std::string &target) {
  for (TargetInspection &t : targets)
    if (t.target == target)
      return t;
  targets.push_back({target, {}, {}});
  return targets.back();
}

/// Candidates for any device first, tuned ones next, the reference last:
/// the columns read from what the author wrote to what it is checked
/// against.
int columnRank(const VariantInspection &v) {
  return v.role == "reference" ? 2 : v.device.empty() ? 0 : 1;
}

void explain(TargetInspection &target) {
  std::stable_sort(target.variants.begin(), target.variants.end(),
                   [](const VariantInspection &a, const VariantInspection &b) {
                     return columnRank(a) < columnRank(b);
                   });
  if (target.variants.empty() || target.variants.front().role != "candidate")
    return;
  const VariantInspection &candidate = target.variants.front();
  if (const VariantInspection *reference = referenceFor(target, candidate))
    target.why = explainDifferences(candidate, *reference);
}

/// The driver's statistics of a SPIR-V variant into |v|, or why none.
void addDriverStatistics(DriverStatisticsSource &statistics,
                         const module::Executable &exe,
                         const module::Variant &variant, uint32_t exportIndex,
                         VariantInspection &v) {
  if (variant.format != hal::ExecutableFormat::Spirv)
    return;
  StatusOr<std::vector<hal::DriverExecutable>> found =
      statistics.statisticsOf(exe.name, variant, exportIndex);
  if (found.ok())
    v.driverStatistics = std::move(*found);
  else
    v.notes.push_back("driver statistics: " + found.status().message());
}

} // namespace

BenchmarkInspection inspectBenchmark(const LoadedBenchmark &benchmark,
                                     const InspectTools &tools,
                                     DriverStatisticsSource *statistics) {
  BenchmarkInspection out;
  out.name = benchmark.name;
  out.modulePath = benchmark.modulePath;
  const module::Executable &exe = benchmark.dispatched();
  out.executable = exe.name;
  for (const module::Variant &variant : exe.variants) {
    VariantInspection v = inspectVariant(variant, benchmark.exportIndex, tools);
    if (statistics)
      addDriverStatistics(*statistics, exe, variant, benchmark.exportIndex, v);
    targetFor(out.targets, variant.target).variants.push_back(std::move(v));
  }
  for (TargetInspection &target : out.targets)
    explain(target);
  return out;
}

StatusOr<InspectReport> runInspect(const InspectRequest &request) {
  KB_ASSIGN_OR_RETURN(std::vector<LoadedBenchmark> benchmarks,
                      loadBenchmarks(request.buildDir, request.benchmark));
  InspectTools tools = findInspectTools();
  DriverStatisticsSource statistics(request.device);
  // A device the user named must be there; `auto` takes what it finds.
  if (request.device != "auto" && request.device != "none")
    if (Status opened = statistics.open();
        !opened.ok() && opened.message().rfind("no Vulkan device", 0) == 0)
      return failedPrecondition("--device " + request.device + ": " +
                                opened.message());
  InspectReport report;
  report.buildDir = request.buildDir;
  for (const LoadedBenchmark &b : benchmarks)
    report.benchmarks.push_back(inspectBenchmark(b, tools, &statistics));
  report.statisticsDevice = statistics.deviceName();
  KB_RETURN_IF_ERROR(writeInspection(tools, report));
  return report;
}

} // namespace kb::workbench
