//===- workbench/build/build_report.cpp - build.json ----------------------===//
#include "workbench/build/build_report.h"

#include "common/sha256.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
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

BuildOptionsRecord optionsRecord(const BuildReportOptions &options) {
  BuildOptionsRecord out;
  out.jobs = options.jobs;
  for (const Target &t : options.requestedTargets)
    out.targets.push_back(t.toString());
  out.strict = options.strict;
  out.cache.enabled = options.cacheEnabled;
  if (options.cacheEnabled)
    out.cache.directory = options.cacheDir.string();
  if (options.remoteCache)
    out.cache.remote =
        RemoteCacheRecord{options.remoteCacheUrl, *options.remoteCache};
  out.timeoutSeconds = finite(options.timeoutSeconds);
  out.kernelsOnly = options.kernelsOnly;
  return out;
}

std::optional<std::string> unlessEmpty(const std::string &value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

/// What |job| planned: its spec.
BuildJobRecord plannedJob(const JobRecord &job) {
  BuildJobRecord out;
  out.kernel = job.result.kernel;
  out.target = job.result.target.toString();
  out.language = toolchains::toString(job.spec->language);
  out.source = job.spec->source.string();
  out.manifest = job.spec->manifest.string();
  out.entry = job.spec->entry;
  out.tunedFor = unlessEmpty(job.spec->tunedFor);
  if (job.kernel && !job.kernel->declared.empty())
    out.declared = job.kernel->declared;
  return out;
}

/// The sha256 of the shared object the build made of |kernel|'s host
/// reference; empty when it made none (it failed, or the step did not run):
/// `run` and `bench` then refuse to load one.
std::string hostReferenceSha(const BuildReport &report,
                             const std::string &kernel) {
  if (report.program)
    for (const StandaloneRecord &s : report.program->standalone)
      if (s.kernel == kernel && s.hostReference)
        return s.hostReference->sha256;
  return "";
}

BuildJobRecord jobRecord(const JobRecord &job, const BuildReport &report) {
  const toolchains::BuildJobResult &r = job.result;
  BuildJobRecord out = plannedJob(job);
  if (out.declared && out.declared->hostReference)
    out.declared->hostReference->sha256 = hostReferenceSha(report, out.kernel);
  out.status = r.status.ok() ? "ok" : "failed";
  if (!r.status.ok())
    out.error =
        BuildErrorRecord{statusCodeName(r.status.code()), r.status.message()};
  out.cache = !report.options.cacheEnabled ? "disabled"
              : r.cacheHit                 ? "hit"
                                           : "miss";
  out.seconds = finite(r.seconds);
  out.sharedCompileWith = unlessEmpty(r.sharedCompileWith);
  out.commands = r.commands;
  for (toolchains::ToolInvocation &c : out.commands)
    c.seconds = finite(c.seconds);
  out.toolVersions = r.toolVersions;
  for (const toolchains::OutputFile &o : r.outputs)
    out.outputs.push_back(
        {o.kind, relativeTo(o.path, report.outputDir), o.sha256, o.bytes});
  out.resources = r.resources;
  out.diagnostics = r.diagnostics;
  return out;
}

BuildProjectRecord projectRecord(const Project &project) {
  BuildProjectRecord out;
  out.name = project.name;
  out.directory = project.directory.string();
  out.manifest = project.manifest.string();
  for (const Target &t : project.targets)
    out.targets.push_back(t.toString());
  if (project.program)
    out.program = project.program->string();
  return out;
}

/// Each tool's version, in the order the jobs first name the tools; a
/// later job's version of a tool replaces an earlier one's.
ToolVersionList toolVersions(const BuildReport &report) {
  ToolVersionList out;
  for (const JobRecord &job : report.jobs)
    for (const auto &[tool, version] : job.result.toolVersions) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const auto &e) { return e.first == tool; });
      if (it == out.end())
        out.emplace_back(tool, version);
      else
        it->second = version;
    }
  return out;
}

} // namespace

BuildTotals computeTotals(const BuildReport &report) {
  BuildTotals totals;
  std::set<std::string> kernels;
  std::set<Target> targets;
  for (const JobRecord &job : report.jobs) {
    // A spec tuned for a device model is one more job of its kernel.
    kernels.insert(job.kernel ? job.kernel->name : job.result.kernel);
    targets.insert(job.result.target);
    ++totals.jobs;
    if (job.result.status.ok())
      ++totals.succeeded;
    else
      ++totals.failed;
    if (job.result.cacheHit)
      ++totals.cacheHits;
    if (job.result.cacheHitRemote)
      ++totals.remoteCacheHits;
    for (const toolchains::ToolInvocation &c : job.result.commands)
      totals.toolSeconds += finite(c.seconds);
  }
  totals.kernels = kernels.size();
  totals.targets = targets.size();
  return totals;
}

BuildRecord toBuildRecord(const BuildReport &report) {
  BuildRecord record;
  record.generator = "kernel-bench " KB_VERSION_STRING;
  record.project = projectRecord(*report.project);
  record.outputDir = report.outputDir.string();
  record.options = optionsRecord(report.options);
  record.error = unlessEmpty(report.error);
  for (const SkippedTarget &s : report.skippedTargets)
    record.skippedTargets.push_back({s.target.toString(), s.reason});
  for (const BrokenKernel &b : report.project->brokenKernels)
    record.brokenKernels.push_back({b.manifest.string(), b.error});
  record.toolVersions = toolVersions(report);
  for (const JobRecord &job : report.jobs)
    record.jobs.push_back(jobRecord(job, report));
  record.program = report.program ? toJson(*report.program) : json(nullptr);
  record.totals = {computeTotals(report), finite(report.wallSeconds)};
  return record;
}

json toJson(const BuildReport &report) { return toJson(toBuildRecord(report)); }

std::string recordFingerprint(json record) {
  record["totals"].erase("wall_seconds");
  record["options"].erase("jobs");
  for (json &job : record["jobs"])
    job.erase("seconds");
  return sha256Hex(
      record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// ---- The program step's record (program_record.h) and its stamp.

namespace {

const char *toString(StepStatus status) {
  switch (status) {
  case StepStatus::Ok:
    return "ok";
  case StepStatus::Failed:
    return "failed";
  case StepStatus::Skipped:
    return "skipped";
  }
  return "failed";
}

json optionalString(const std::optional<std::string> &value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T> json array(const std::vector<T> &values) {
  json out = json::array();
  for (const T &v : values)
    out.push_back(v);
  return out;
}

/// Where a substituted object takes its constants: null for push
/// constants (the export's way), else {"uniform_buffer": {binding, offsets,
/// size}}.
json constantsJson(const SubstitutionEntry &s) {
  if (!s.uniformConstants)
    return nullptr;
  const UniformConstants &u = *s.uniformConstants;
  json block = {
      {"binding", u.binding}, {"offsets", u.offsets}, {"size", u.size}};
  return {{"uniform_buffer", std::move(block)}};
}

/// Adds what one compile was asked and produced to |out|.
void addCompiled(const CompiledModule &m, json &out) {
  json targets = json::array();
  for (const Target &target : m.targets)
    targets.push_back(target.toString());
  out["targets"] = std::move(targets);
  out["diagnostics"] = m.diagnostics;
  if (!m.ok)
    return;
  out["module"] = m.module;
  json substitutions = json::array();
  for (const SubstitutionEntry &s : m.substitutions)
    substitutions.push_back(
        {{"executable", s.executable},
         {"variant", s.variant},
         {"kind", driver::toString(s.kind)},
         {"kernel", optionalString(s.kernel)},
         {"manifest", optionalString(s.manifest)},
         {"file", s.file},
         {"reference", s.reference},
         {"device", optionalString(s.device)},
         {"launch",
          s.workgroupSize.empty()
              ? json(nullptr)
              : json{{"workgroup_size", s.workgroupSize},
                     {"workload_per_workgroup", s.workloadPerWorkgroup}}},
         {"constants", constantsJson(s)}});
  out["substitutions"] = std::move(substitutions);
  json benchmarks = json::array();
  for (const driver::BenchmarkRecord &b : m.benchmarks)
    benchmarks.push_back({{"name", b.name},
                          {"executable", b.executable},
                          {"export", b.exportName},
                          {"workload", array(b.workload)},
                          {"workgroup_count", array(b.workgroupCount)},
                          {"candidates", array(b.candidates)},
                          {"references", array(b.references)},
                          {"sites", array(b.sites)},
                          {"file", b.file}});
  out["benchmarks"] = std::move(benchmarks);
  json unbenchmarked = json::array();
  for (const driver::UnbenchmarkedDispatch &d : m.unbenchmarked)
    unbenchmarked.push_back({{"executable", d.executable},
                             {"export", d.exportName},
                             {"site", d.site},
                             {"reason", d.reason}});
  out["unbenchmarked"] = std::move(unbenchmarked);
  json codegen = json::array();
  for (const driver::CodegenRecord &c : m.codegen)
    codegen.push_back({{"executable", c.executable},
                       {"variant", c.variant},
                       {"target", c.target.toString()},
                       {"milliseconds", finite(c.milliseconds)}});
  out["codegen"] = std::move(codegen);
}

/// A standalone kernel's struct bindings: each binding's struct as its
/// SPIR-V lays it out (stride, and every member's type, GLSL spelling,
/// offset, components, count and array stride).
json structBindingsJson(const std::vector<StructBindingRecord> &records) {
  json out = json::array();
  for (const StructBindingRecord &r : records) {
    json members = json::array();
    for (const StructMember &m : r.layout.members)
      members.push_back({{"name", m.name},
                         {"type", toString(m.type)},
                         {"glsl", structMemberTypeName(m)},
                         {"offset", m.offset},
                         {"components", m.components},
                         {"count", m.count},
                         {"array_stride", m.arrayStride}});
    out.push_back({{"binding", r.binding},
                   {"name", r.name},
                   {"struct", r.layout.name},
                   {"stride", r.layout.stride},
                   {"members", std::move(members)}});
  }
  return out;
}

json standaloneJson(const StandaloneRecord &r) {
  json out = {{"kernel", r.kernel},
              {"manifest", r.manifest},
              {"status", toString(r.status)}};
  if (!r.reason.empty())
    out["reason"] = r.reason;
  if (!r.error.empty())
    out["error"] = r.error;
  if (r.program)
    out["program"] = *r.program;
  if (r.compiled)
    addCompiled(*r.compiled, out);
  if (const std::optional<HostReferenceRecord> &h = r.hostReference)
    out["host_reference"] = {{"source", h->source},
                             {"function", h->function},
                             {"file", h->file},
                             {"sha256", h->sha256},
                             {"bytes", h->bytes},
                             {"cache", h->cache},
                             {"seconds", finite(h->seconds)},
                             {"command", h->command}};
  if (!r.structBindings.empty())
    out["struct_bindings"] = structBindingsJson(r.structBindings);
  // The status is the record's, whatever the compile said.
  out["status"] = toString(r.status);
  return out;
}

// Reading back (the stamp): every field checked; any mismatch is nullopt.

bool read(const json &j, const char *key, std::string &out) {
  if (!j.contains(key) || !j[key].is_string())
    return false;
  out = j[key].get<std::string>();
  return true;
}

bool read(const json &j, const char *key, std::optional<std::string> &out) {
  if (!j.contains(key))
    return false;
  if (j[key].is_null()) {
    out.reset();
    return true;
  }
  std::string value;
  if (!read(j, key, value))
    return false;
  out = value;
  return true;
}

bool read(const json &j, const char *key, Target &out) {
  std::string text;
  if (!read(j, key, text))
    return false;
  StatusOr<Target> target = Target::parse(text);
  if (target.ok())
    out = *target;
  return target.ok();
}

bool read(const json &j, const char *key, driver::SubstitutionKind &out) {
  std::string text;
  if (!read(j, key, text))
    return false;
  std::optional<driver::SubstitutionKind> kind =
      driver::parseSubstitutionKind(text);
  if (kind)
    out = *kind;
  return kind.has_value();
}

bool read(const json &j, const char *key, std::vector<Target> &out) {
  if (!j.contains(key) || !j[key].is_array())
    return false;
  out.clear();
  for (const json &v : j[key]) {
    if (!v.is_string())
      return false;
    StatusOr<Target> target = Target::parse(v.get<std::string>());
    if (!target.ok())
      return false;
    out.push_back(*target);
  }
  return true;
}

template <typename T>
bool read(const json &j, const char *key, std::vector<T> &out) {
  if (!j.contains(key) || !j[key].is_array())
    return false;
  out.clear();
  for (const json &v : j[key]) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string())
        return false;
    } else if (!v.is_number_integer()) {
      return false;
    }
    out.push_back(v.get<T>());
  }
  return true;
}

bool read(const json &j, const char *key, uint32_t &out) {
  if (!j.contains(key) || !j[key].is_number_unsigned() ||
      j[key].get<uint64_t>() > UINT32_MAX)
    return false;
  out = j[key].get<uint32_t>();
  return true;
}

/// One member of a "struct_bindings" entry.
bool readStructMember(const json &j, StructMember &m) {
  std::string type;
  if (!j.is_object() || !read(j, "name", m.name) || !read(j, "type", type) ||
      !read(j, "offset", m.offset) || !read(j, "components", m.components) ||
      !read(j, "count", m.count) || !read(j, "array_stride", m.arrayStride))
    return false;
  std::optional<ElementType> parsed = parseElementType(type);
  m.type = parsed.value_or(ElementType::U8);
  return parsed.has_value();
}

/// "struct_bindings": absent (none) or what structBindingsJson wrote.
bool readStructBindings(const json &s, std::vector<StructBindingRecord> &out) {
  if (!s.contains("struct_bindings"))
    return true;
  if (!s["struct_bindings"].is_array())
    return false;
  for (const json &b : s["struct_bindings"]) {
    StructBindingRecord r;
    if (!b.is_object() || !read(b, "binding", r.binding) ||
        !read(b, "name", r.name) || !read(b, "struct", r.layout.name) ||
        !read(b, "stride", r.layout.stride) || !b.contains("members") ||
        !b["members"].is_array())
      return false;
    for (const json &m : b["members"])
      if (!readStructMember(m, r.layout.members.emplace_back()))
        return false;
    out.push_back(std::move(r));
  }
  return true;
}

/// A substitution's "launch": absent or null (the export's), or its own
/// workgroup size and count rule.
bool readLaunch(const json &s, SubstitutionEntry &e) {
  if (!s.contains("launch") || s["launch"].is_null())
    return true;
  return s["launch"].is_object() &&
         read(s["launch"], "workgroup_size", e.workgroupSize) &&
         read(s["launch"], "workload_per_workgroup", e.workloadPerWorkgroup);
}

bool readStatus(const json &j, StepStatus &out) {
  std::string s;
  if (!read(j, "status", s))
    return false;
  for (StepStatus status :
       {StepStatus::Ok, StepStatus::Failed, StepStatus::Skipped})
    if (s == toString(status)) {
      out = status;
      return true;
    }
  return false;
}

bool readCompiled(const json &j, std::optional<CompiledModule> &out) {
  if (!j.contains("targets"))
    return true;
  CompiledModule m;
  if (!read(j, "targets", m.targets) || !read(j, "diagnostics", m.diagnostics))
    return false;
  m.ok = j.contains("module");
  if (m.ok) {
    if (!read(j, "module", m.module) || !j.contains("substitutions") ||
        !j.contains("benchmarks") || !j.contains("unbenchmarked") ||
        !j.contains("codegen"))
      return false;
    for (const json &s : j["substitutions"]) {
      SubstitutionEntry e;
      if (!read(s, "executable", e.executable) ||
          !read(s, "variant", e.variant) || !read(s, "kind", e.kind) ||
          !read(s, "kernel", e.kernel) || !read(s, "manifest", e.manifest) ||
          !read(s, "file", e.file) || !read(s, "reference", e.reference) ||
          !read(s, "device", e.device) || !readLaunch(s, e))
        return false;
      m.substitutions.push_back(std::move(e));
    }
    for (const json &b : j["benchmarks"]) {
      driver::BenchmarkRecord r;
      if (!read(b, "name", r.name) || !read(b, "executable", r.executable) ||
          !read(b, "export", r.exportName) ||
          !read(b, "workload", r.workload) ||
          !read(b, "workgroup_count", r.workgroupCount) ||
          !read(b, "candidates", r.candidates) ||
          !read(b, "references", r.references) || !read(b, "sites", r.sites) ||
          !read(b, "file", r.file))
        return false;
      m.benchmarks.push_back(std::move(r));
    }
    for (const json &d : j["unbenchmarked"]) {
      driver::UnbenchmarkedDispatch u;
      if (!read(d, "executable", u.executable) ||
          !read(d, "export", u.exportName) || !read(d, "site", u.site) ||
          !read(d, "reason", u.reason))
        return false;
      m.unbenchmarked.push_back(std::move(u));
    }
    for (const json &c : j["codegen"]) {
      driver::CodegenRecord r;
      if (!read(c, "executable", r.executable) ||
          !read(c, "variant", r.variant) || !read(c, "target", r.target) ||
          !c.contains("milliseconds") || !c["milliseconds"].is_number())
        return false;
      r.milliseconds = c["milliseconds"].get<double>();
      m.codegen.push_back(std::move(r));
    }
  }
  out = std::move(m);
  return true;
}

std::optional<ProgramRecord> readProgramRecord(const json &j) {
  ProgramRecord r;
  if (!j.is_object() || !read(j, "path", r.path) || !readStatus(j, r.status) ||
      !readCompiled(j, r.compiled))
    return std::nullopt;
  if (j.contains("reason") && !read(j, "reason", r.reason))
    return std::nullopt;
  if (j.contains("error") && !read(j, "error", r.error))
    return std::nullopt;
  if (j.contains("cached")) {
    if (!j["cached"].is_boolean())
      return std::nullopt;
    r.cached = j["cached"].get<bool>();
  }
  if (j.contains("standalone")) {
    if (!j["standalone"].is_array())
      return std::nullopt;
    for (const json &s : j["standalone"]) {
      StandaloneRecord e;
      if (!s.is_object() || !read(s, "kernel", e.kernel) ||
          !read(s, "manifest", e.manifest) || !readStatus(s, e.status) ||
          !readCompiled(s, e.compiled))
        return std::nullopt;
      if ((s.contains("reason") && !read(s, "reason", e.reason)) ||
          (s.contains("error") && !read(s, "error", e.error)) ||
          !readStructBindings(s, e.structBindings))
        return std::nullopt;
      if (s.contains("program")) {
        std::string program;
        if (!read(s, "program", program))
          return std::nullopt;
        e.program = program;
      }
      r.standalone.push_back(std::move(e));
    }
  }
  return r;
}

} // namespace

json toJson(const ProgramRecord &r) {
  json out = {{"path", optionalString(r.path)}, {"status", toString(r.status)}};
  if (!r.reason.empty())
    out["reason"] = r.reason;
  if (!r.error.empty())
    out["error"] = r.error;
  if (r.compiled)
    addCompiled(*r.compiled, out);
  out["status"] = toString(r.status);
  if (!r.standalone.empty()) {
    json standalone = json::array();
    for (const StandaloneRecord &s : r.standalone)
      standalone.push_back(standaloneJson(s));
    out["standalone"] = std::move(standalone);
  }
  if (r.cached)
    out["cached"] = *r.cached;
  return out;
}

/// Bump when the stamp's layout or what its key covers changes.
constexpr const char *kStampFormat = "kb-program-stamp 2";

std::string renderProgramStamp(const ProgramStamp &stamp) {
  json outputs = json::object();
  for (const auto &[file, hash] : stamp.outputs)
    outputs[file] = hash;
  json j = {{"format", kStampFormat},
            {"key", stamp.key},
            {"outputs", std::move(outputs)},
            {"record", toJson(stamp.record)}};
  return j.dump(1) + "\n";
}

std::optional<ProgramStamp> parseProgramStamp(const std::string &text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  ProgramStamp stamp;
  std::string format;
  if (!j.is_object() || !read(j, "format", format) || format != kStampFormat ||
      !read(j, "key", stamp.key) || !j.contains("outputs") ||
      !j["outputs"].is_object() || !j.contains("record"))
    return std::nullopt;
  for (const auto &[file, hash] : j["outputs"].items()) {
    if (!hash.is_string())
      return std::nullopt;
    stamp.outputs[file] = hash.get<std::string>();
  }
  std::optional<ProgramRecord> record = readProgramRecord(j["record"]);
  if (!record)
    return std::nullopt;
  stamp.record = std::move(*record);
  return stamp;
}

size_t ProgramRecord::benchmarkCount() const {
  size_t n = compiled ? compiled->benchmarks.size() : 0;
  for (const StandaloneRecord &s : standalone)
    n += s.compiled ? s.compiled->benchmarks.size() : 0;
  return n;
}

/// The substitutions of every module compiled for which |tuned| is whether
/// they carry a device model.
static size_t countSubstitutions(const ProgramRecord &r, bool tuned) {
  auto count = [&](const std::optional<CompiledModule> &m) {
    if (!m)
      return size_t{0};
    return static_cast<size_t>(
        std::count_if(m->substitutions.begin(), m->substitutions.end(),
                      [&](const SubstitutionEntry &e) {
                        return e.device.has_value() == tuned;
                      }));
  };
  size_t n = count(r.compiled);
  for (const StandaloneRecord &s : r.standalone)
    n += count(s.compiled);
  return n;
}

size_t ProgramRecord::substitutionCount() const {
  return countSubstitutions(*this, /*tuned=*/false);
}

size_t ProgramRecord::tunedVariantCount() const {
  return countSubstitutions(*this, /*tuned=*/true);
}

} // namespace kb::workbench
