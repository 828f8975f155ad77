//===- workbench/build_report.cpp - build.json ----------------------------===//
#include "workbench/build_report.h"

#include "toolchains/process.h"

#include <cmath>
#include <set>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace kb::workbench {

namespace {

/// build.json is strict JSON: no NaN or infinity.
double finite(double value) { return std::isfinite(value) ? value : 0.0; }

std::string relativeTo(const fs::path &path, const fs::path &base) {
  fs::path rel = path.lexically_normal().lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..")
    return path.string();
  return rel.generic_string();
}

json diagnosticJson(const toolchains::Diagnostic &d) {
  return {{"tool", d.tool},
          {"file", d.file},
          {"line", d.line},
          {"column", d.column},
          {"severity", toolchains::toString(d.severity)},
          {"message", d.message},
          {"code", d.code}};
}

json jobJson(const JobRecord &job, const BuildReport &report) {
  const toolchains::BuildJobResult &r = job.result;
  json commands = json::array();
  for (const toolchains::ToolInvocation &c : r.commands)
    commands.push_back({{"tool", c.tool},
                        {"argv", c.argv},
                        {"command_line", toolchains::formatCommandLine(c.argv)},
                        {"seconds", finite(c.seconds)},
                        {"exit_code", c.exitCode},
                        {"signal", c.signal},
                        {"timed_out", c.timedOut}});
  json outputs = json::array();
  for (const toolchains::OutputFile &o : r.outputs)
    outputs.push_back({{"kind", o.kind},
                       {"path", relativeTo(o.path, report.outputDir)},
                       {"sha256", o.sha256},
                       {"bytes", o.bytes}});
  json resources = nullptr;
  if (r.resources)
    resources = {{"registers", r.resources->registers},
                 {"stack_frame_bytes", r.resources->stackFrameBytes},
                 {"spill_store_bytes", r.resources->spillStoreBytes},
                 {"spill_load_bytes", r.resources->spillLoadBytes},
                 {"shared_memory_bytes", r.resources->sharedMemoryBytes},
                 {"barriers", r.resources->barriers},
                 {"constant_memory_bytes", r.resources->constantMemoryBytes}};
  json diagnostics = json::array();
  for (const toolchains::Diagnostic &d : r.diagnostics)
    diagnostics.push_back(diagnosticJson(d));
  json error = nullptr;
  if (!r.status.ok())
    error = {{"code", statusCodeName(r.status.code())},
             {"message", r.status.message()}};
  return {{"kernel", r.kernel},
          {"target", r.target.toString()},
          {"language", toolchains::toString(job.spec->language)},
          {"source", job.spec->source.string()},
          {"manifest", job.spec->manifest.string()},
          {"entry", job.spec->entry},
          {"status", r.status.ok() ? "ok" : "failed"},
          {"error", error},
          {"cache", !report.options.cacheEnabled ? "disabled"
                    : r.cacheHit                 ? "hit"
                                                 : "miss"},
          {"seconds", finite(r.seconds)},
          {"commands", commands},
          {"tool_versions", r.toolVersions},
          {"outputs", outputs},
          {"resources", resources},
          {"diagnostics", diagnostics}};
}

} // namespace

BuildTotals computeTotals(const BuildReport &report) {
  BuildTotals totals;
  std::set<std::string> kernels;
  std::set<Target> targets;
  for (const JobRecord &job : report.jobs) {
    kernels.insert(job.result.kernel);
    targets.insert(job.result.target);
    ++totals.jobs;
    if (job.result.status.ok())
      ++totals.succeeded;
    else
      ++totals.failed;
    if (job.result.cacheHit)
      ++totals.cacheHits;
    for (const toolchains::ToolInvocation &c : job.result.commands)
      totals.toolSeconds += finite(c.seconds);
  }
  totals.kernels = kernels.size();
  totals.targets = targets.size();
  return totals;
}

json toJson(const BuildReport &report) {
  json toolVersions = json::object();
  json jobs = json::array();
  for (const JobRecord &job : report.jobs) {
    for (const auto &[tool, version] : job.result.toolVersions)
      toolVersions[tool] = version;
    jobs.push_back(jobJson(job, report));
  }
  json requested = json::array();
  for (const Target &t : report.options.requestedTargets)
    requested.push_back(t.toString());
  json projectTargets = json::array();
  for (const Target &t : report.project->targets)
    projectTargets.push_back(t.toString());

  BuildTotals totals = computeTotals(report);
  return {{"schema_version", kBuildReportSchemaVersion},
          {"generator", "kernel-bench " KB_VERSION_STRING},
          {"project",
           {{"name", report.project->name},
            {"directory", report.project->directory.string()},
            {"manifest", report.project->manifest.string()},
            {"targets", projectTargets},
            {"program", report.project->program
                            ? json(report.project->program->string())
                            : json(nullptr)}}},
          {"output_dir", report.outputDir.string()},
          {"options",
           {{"jobs", report.options.jobs},
            {"targets", requested},
            {"strict", report.options.strict},
            {"cache",
             {{"enabled", report.options.cacheEnabled},
              {"directory", report.options.cacheEnabled
                                ? json(report.options.cacheDir.string())
                                : json(nullptr)}}},
            {"timeout_seconds", finite(report.options.timeoutSeconds)},
            {"kernels_only", report.options.kernelsOnly}}},
          {"error", report.error.empty() ? json(nullptr) : json(report.error)},
          {"tool_versions", toolVersions},
          {"jobs", jobs},
          {"program", report.program},
          {"totals",
           {{"kernels", totals.kernels},
            {"targets", totals.targets},
            {"jobs", totals.jobs},
            {"succeeded", totals.succeeded},
            {"failed", totals.failed},
            {"cache_hits", totals.cacheHits},
            {"wall_seconds", finite(report.wallSeconds)},
            {"tool_seconds", totals.toolSeconds}}}};
}

} // namespace kb::workbench
