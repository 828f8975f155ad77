//===- workbench/build/build_resources.cpp - ptxas figures of a build's ---===//
#include "workbench/build/build_resources.h"

#include "workbench/build/build_report.h"

#include "common/file_util.h"

#include <nlohmann/json.hpp>

namespace kb::workbench {

namespace {
using json = nlohmann::json;

toolchains::ResourceUsage resourcesOf(const json &r) {
  toolchains::ResourceUsage usage;
  usage.registers = r.value("registers", 0u);
  usage.stackFrameBytes = r.value("stack_frame_bytes", 0u);
  usage.spillStoreBytes = r.value("spill_store_bytes", 0u);
  usage.spillLoadBytes = r.value("spill_load_bytes", 0u);
  usage.sharedMemoryBytes = r.value("shared_memory_bytes", 0u);
  usage.barriers = r.value("barriers", 0u);
  usage.constantMemoryBytes = r.value("constant_memory_bytes", 0u);
  return usage;
}
} // namespace

StatusOr<json> readBuildJson(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(std::string text, readFile(buildJson, kBuildRecordInput));
  std::string where = buildJson.string() + ": ";
  try {
    json doc = json::parse(text);
    int version = doc.at("schema_version").get<int>();
    if (version > kBuildReportSchemaVersion)
      return invalidArgument(where + "schema_version " +
                             std::to_string(version) +
                             " is newer than this kernel-bench reads (" +
                             std::to_string(kBuildReportSchemaVersion) + ")");
    return doc;
  } catch (const json::exception &e) {
    return invalidArgument(where +
                           "not a build.json this version reads: " + e.what());
  }
}

StatusOr<ObjectResources>
readObjectResources(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(json doc, readBuildJson(buildJson));
  std::string where = buildJson.string() + ": ";
  try {
    ObjectResources resources;
    for (const json &job : doc.at("jobs")) {
      const json &r = job.at("resources");
      if (r.is_null())
        continue;
      for (const json &output : job.at("outputs"))
        resources[output.at("sha256").get<std::string>()] = resourcesOf(r);
    }
    return resources;
  } catch (const json::exception &e) {
    return invalidArgument(where +
                           "not a build.json this version reads: " + e.what());
  }
}

} // namespace kb::workbench
