//===- workbench/inspect/inspect_json.cpp - `inspect --json` --------------===//
#include "workbench/inspect/inspect_json.h"

#include "workbench/support/resource_fields.h"

namespace kb::workbench {
namespace {

using Json = nlohmann::ordered_json;

Json ptxJson(const PtxInstructionMix &m) {
  return Json{{"instructions", m.instructions},
              {"global_loads", m.globalLoads},
              {"global_stores", m.globalStores},
              {"shared_ops", m.sharedOps},
              {"fma", m.fma},
              {"tensor_ops", m.tensorOps},
              {"branches", m.branches},
              {"barriers", m.barriers},
              {"opcodes", m.opcodes}};
}

Json spirvJson(const SpirvInstructionMix &m) {
  return Json{{"instructions", m.instructions},
              {"buffer_loads", m.bufferLoads},
              {"buffer_stores", m.bufferStores},
              {"workgroup_ops", m.workgroupOps},
              {"fma", m.fma},
              {"matrix_ops", m.matrixOps},
              {"branches", m.branches},
              {"barriers", m.barriers},
              {"opcodes", m.opcodes}};
}

template <typename T, typename F>
Json orNull(const std::optional<T> &value, F toJson) {
  return value ? toJson(*value) : Json(nullptr);
}

Json driverStatisticsJson(const std::vector<hal::DriverExecutable> &found) {
  Json executables = Json::array();
  for (const hal::DriverExecutable &e : found) {
    Json statistics = Json::array();
    for (const hal::DriverStatistic &s : e.statistics)
      statistics.push_back(Json{{"name", s.name},
                                {"description", s.description},
                                {"value", s.value},
                                {"number", s.number}});
    executables.push_back(Json{{"name", e.name},
                               {"description", e.description},
                               {"subgroup_size", e.subgroupSize},
                               {"statistics", statistics}});
  }
  return executables;
}

Json variantJson(const VariantInspection &v) {
  return Json{
      {"label", v.label},
      {"role", v.role},
      {"device", v.device.empty() ? Json(nullptr) : Json(v.device)},
      {"format", v.format},
      {"entry", v.entry},
      {"workgroup_size", v.workgroupSize},
      {"ptx", orNull(v.ptx, ptxJson)},
      {"resources",
       orNull(v.resources, [](auto &r) { return toJsonObject(r); })},
      {"occupancy", orNull(v.occupancy, [](double o) { return Json(o); })},
      {"sass", orNull(v.sass,
                      [](const SassInstructionMix &m) {
                        return Json{{"instructions", m.instructions},
                                    {"opcodes", m.opcodes}};
                      })},
      {"spirv", orNull(v.spirv, spirvJson)},
      {"driver_statistics", driverStatisticsJson(v.driverStatistics)},
      {"notes", v.notes}};
}

Json benchmarkJson(const BenchmarkInspection &b) {
  Json targets = Json::array();
  for (const TargetInspection &t : b.targets) {
    Json variants = Json::array();
    for (const VariantInspection &v : t.variants)
      variants.push_back(variantJson(v));
    targets.push_back(
        Json{{"target", t.target}, {"why", t.why}, {"variants", variants}});
  }
  return Json{{"name", b.name},         {"executable", b.executable},
              {"module", b.modulePath}, {"output_dir", b.outputDir},
              {"files", b.files},       {"notes", b.notes},
              {"targets", targets}};
}

} // namespace

Json inspectJson(const InspectReport &report) {
  Json benchmarks = Json::array();
  for (const BenchmarkInspection &b : report.benchmarks)
    benchmarks.push_back(benchmarkJson(b));
  return Json{{"schema_version", kInspectJsonSchemaVersion},
              {"build", report.buildDir},
              {"statistics_device", report.statisticsDevice.empty()
                                        ? Json(nullptr)
                                        : Json(report.statisticsDevice)},
              {"benchmarks", benchmarks}};
}

} // namespace kb::workbench
