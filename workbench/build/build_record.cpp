//===- workbench/build/build_record.cpp - build.json as a type ------------===//
//
// Every key of build.json, in file order, once: the writer and the reader
// both walk these tables (workbench/support/json_fields.h).
//
//===----------------------------------------------------------------------===//
#include "workbench/build/build_record.h"

#include "common/file_util.h"
#include "common/process.h"
#include "workbench/build/declared_figures.h"
#include "workbench/support/json_fields.h"
#include "workbench/support/resource_fields.h"

#include <array>

namespace kb::workbench {

namespace {
/// A key no reader depends on: a build.json without it still reads.
constexpr Presence kUnused = Presence::MayBeAbsent;

constexpr std::array<toolchains::Severity, 5> kSeverities = {
    toolchains::Severity::Note, toolchains::Severity::Remark,
    toolchains::Severity::Warning, toolchains::Severity::Error,
    toolchains::Severity::Fatal};
} // namespace

template <> struct JsonFields<BuildProjectRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("name", p.name, kUnused));
    KB_RETURN_IF_ERROR(io.field("directory", p.directory, kUnused));
    KB_RETURN_IF_ERROR(io.field("manifest", p.manifest, kUnused));
    KB_RETURN_IF_ERROR(io.field("targets", p.targets, kUnused));
    return io.field("program", p.program, kUnused);
  }
};

template <> struct JsonFields<RemoteCacheRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &r) {
    KB_RETURN_IF_ERROR(io.field("url", r.url, kUnused));
    KB_RETURN_IF_ERROR(io.field("hits", r.stats.hits, kUnused));
    KB_RETURN_IF_ERROR(io.field("misses", r.stats.misses, kUnused));
    KB_RETURN_IF_ERROR(io.field("uploads", r.stats.uploads, kUnused));
    KB_RETURN_IF_ERROR(io.field("corrupt", r.stats.corrupt, kUnused));
    KB_RETURN_IF_ERROR(io.field("reads_off", r.stats.readsOff, kUnused));
    KB_RETURN_IF_ERROR(io.field("writes_off", r.stats.writesOff, kUnused));
    return io.field("warnings", r.stats.warnings, kUnused);
  }
};

template <> struct JsonFields<BuildCacheRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("enabled", c.enabled, kUnused));
    KB_RETURN_IF_ERROR(io.field("directory", c.directory, kUnused));
    return io.field("remote", c.remote, kUnused);
  }
};

template <> struct JsonFields<BuildOptionsRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("jobs", o.jobs, kUnused));
    KB_RETURN_IF_ERROR(io.field("targets", o.targets, kUnused));
    KB_RETURN_IF_ERROR(io.field("strict", o.strict, kUnused));
    KB_RETURN_IF_ERROR(io.field("cache", o.cache, kUnused));
    KB_RETURN_IF_ERROR(io.field("timeout_seconds", o.timeoutSeconds, kUnused));
    return io.field("kernels_only", o.kernelsOnly, kUnused);
  }
};

template <> struct JsonFields<BuildErrorRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &e) {
    KB_RETURN_IF_ERROR(io.field("code", e.code, kUnused));
    return io.field("message", e.message, kUnused);
  }
};

template <> struct JsonFields<BuildOutputRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("kind", o.kind, kUnused));
    KB_RETURN_IF_ERROR(io.field("path", o.path, kUnused));
    // The object's identity: bench finds its figures by it.
    KB_RETURN_IF_ERROR(io.field("sha256", o.sha256));
    return io.field("bytes", o.bytes, kUnused);
  }
};

template <> struct JsonFields<toolchains::ToolInvocation> {
  template <typename IO, typename S> static Status map(IO &io, S &c) {
    KB_RETURN_IF_ERROR(io.field("tool", c.tool, kUnused));
    KB_RETURN_IF_ERROR(io.field("argv", c.argv, kUnused));
    KB_RETURN_IF_ERROR(io.derived(
        "command_line", [&] { return kb::formatCommandLine(c.argv); }));
    // What a user can run again from anywhere (ToolInvocation::userArgv).
    KB_RETURN_IF_ERROR(io.derived("rerun", [&] {
      return kb::formatCommandLine(c.userArgv.empty() ? c.argv : c.userArgv);
    }));
    KB_RETURN_IF_ERROR(io.field("seconds", c.seconds, kUnused));
    KB_RETURN_IF_ERROR(io.field("exit_code", c.exitCode, kUnused));
    KB_RETURN_IF_ERROR(io.field("signal", c.signal, kUnused));
    return io.field("timed_out", c.timedOut, kUnused);
  }
};

template <> struct JsonFields<toolchains::Diagnostic> {
  template <typename IO, typename S> static Status map(IO &io, S &d) {
    KB_RETURN_IF_ERROR(io.field("tool", d.tool, kUnused));
    KB_RETURN_IF_ERROR(io.field("file", d.file, kUnused));
    KB_RETURN_IF_ERROR(io.field("line", d.line, kUnused));
    KB_RETURN_IF_ERROR(io.field("column", d.column, kUnused));
    KB_RETURN_IF_ERROR(
        io.field("severity", d.severity, oneOf(kSeverities), kUnused));
    KB_RETURN_IF_ERROR(io.field("message", d.message, kUnused));
    return io.field("code", d.code, kUnused);
  }
};

template <> struct JsonFields<BuildJobRecord> {
  /// What the build planned, then what it did.
  template <typename IO, typename S> static Status map(IO &io, S &j) {
    KB_RETURN_IF_ERROR(io.field("kernel", j.kernel));
    KB_RETURN_IF_ERROR(io.field("target", j.target, kUnused));
    KB_RETURN_IF_ERROR(io.field("language", j.language, kUnused));
    KB_RETURN_IF_ERROR(io.field("source", j.source, kUnused));
    KB_RETURN_IF_ERROR(io.field("manifest", j.manifest, kUnused));
    KB_RETURN_IF_ERROR(io.field("entry", j.entry, kUnused));
    KB_RETURN_IF_ERROR(io.field("tuned_for", j.tunedFor, kUnused));
    return mapOutcome(io, j);
  }
  template <typename IO, typename S> static Status mapOutcome(IO &io, S &j) {
    KB_RETURN_IF_ERROR(io.field("status", j.status, kUnused));
    KB_RETURN_IF_ERROR(io.field("error", j.error, kUnused));
    KB_RETURN_IF_ERROR(io.field("cache", j.cache, kUnused));
    KB_RETURN_IF_ERROR(io.field("seconds", j.seconds, kUnused));
    KB_RETURN_IF_ERROR(
        io.field("shared_compile_with", j.sharedCompileWith, kUnused));
    KB_RETURN_IF_ERROR(io.field("commands", j.commands, kUnused));
    KB_RETURN_IF_ERROR(io.field("tool_versions", j.toolVersions, kUnused));
    KB_RETURN_IF_ERROR(io.field("outputs", j.outputs));
    // SPIR-V and failed jobs have none.
    KB_RETURN_IF_ERROR(io.field("resources", j.resources, kUnused));
    // Absent from files written before kernels declared anything.
    KB_RETURN_IF_ERROR(io.field("declared", j.declared, kUnused));
    return io.field("diagnostics", j.diagnostics, kUnused);
  }
};

template <> struct JsonFields<SkippedTargetRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &s) {
    KB_RETURN_IF_ERROR(io.field("target", s.target, kUnused));
    return io.field("reason", s.reason, kUnused);
  }
};

template <> struct JsonFields<BrokenKernelRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &b) {
    KB_RETURN_IF_ERROR(io.field("manifest", b.manifest, kUnused));
    return io.field("error", b.error, kUnused);
  }
};

template <> struct JsonFields<BuildTotalsRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &t) {
    auto &c = t.counts;
    KB_RETURN_IF_ERROR(io.field("kernels", c.kernels, kUnused));
    KB_RETURN_IF_ERROR(io.field("targets", c.targets, kUnused));
    KB_RETURN_IF_ERROR(io.field("jobs", c.jobs, kUnused));
    KB_RETURN_IF_ERROR(io.field("succeeded", c.succeeded, kUnused));
    KB_RETURN_IF_ERROR(io.field("failed", c.failed, kUnused));
    KB_RETURN_IF_ERROR(io.field("cache_hits", c.cacheHits, kUnused));
    KB_RETURN_IF_ERROR(
        io.field("remote_cache_hits", c.remoteCacheHits, kUnused));
    KB_RETURN_IF_ERROR(io.field("wall_seconds", t.wallSeconds, kUnused));
    return io.field("tool_seconds", c.toolSeconds, kUnused);
  }
};

template <> struct JsonFields<BuildRecord> {
  template <typename IO, typename S> static Status map(IO &io, S &r) {
    // readBuildRecord checks schema_version first.
    KB_RETURN_IF_ERROR(io.field("schema_version", r.schemaVersion));
    KB_RETURN_IF_ERROR(io.field("generator", r.generator, kUnused));
    KB_RETURN_IF_ERROR(io.field("project", r.project, kUnused));
    KB_RETURN_IF_ERROR(io.field("output_dir", r.outputDir, kUnused));
    KB_RETURN_IF_ERROR(io.field("options", r.options, kUnused));
    KB_RETURN_IF_ERROR(io.field("error", r.error, kUnused));
    KB_RETURN_IF_ERROR(io.field("skipped_targets", r.skippedTargets, kUnused));
    KB_RETURN_IF_ERROR(io.field("broken_kernels", r.brokenKernels, kUnused));
    KB_RETURN_IF_ERROR(io.field("tool_versions", r.toolVersions, kUnused));
    KB_RETURN_IF_ERROR(io.field("jobs", r.jobs));
    KB_RETURN_IF_ERROR(io.field("program", r.program, kUnused));
    return io.field("totals", r.totals, kUnused);
  }
};

nlohmann::ordered_json toJson(const BuildRecord &record) {
  return toJsonObject(record);
}

namespace {
/// Parses |text| and checks its schema_version before anything else, so
/// that a newer file gets the message that explains it.
StatusOr<OrderedJson> parseVersioned(const std::string &text,
                                     const std::string &file) {
  OrderedJson doc;
  try {
    doc = OrderedJson::parse(text);
  } catch (const OrderedJson::parse_error &e) {
    return invalidArgument(file + ": not a build.json this version reads (" +
                           e.what() + "); rebuild with kernel-bench build");
  }
  auto version = doc.is_object() ? doc.find("schema_version") : doc.end();
  if (!doc.is_object() || version == doc.end() || !version->is_number_integer())
    return invalidArgument(file + ": schema_version: expected an integer "
                                  "(is this the build.json of kernel-bench "
                                  "build?)");
  if (*version > kBuildReportSchemaVersion)
    return invalidArgument(file + ": schema_version " + version->dump() +
                           " is newer than this kernel-bench reads (" +
                           std::to_string(kBuildReportSchemaVersion) +
                           "); use the kernel-bench that wrote it, or a "
                           "newer one");
  return doc;
}
} // namespace

StatusOr<BuildRecord> readBuildRecord(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(std::string text, readFile(buildJson, kBuildRecordInput));
  KB_ASSIGN_OR_RETURN(OrderedJson doc,
                      parseVersioned(text, buildJson.string()));
  JsonOrigin origin{buildJson.string(),
                    "not a complete build.json; rebuild with kernel-bench "
                    "build"};
  BuildRecord record;
  KB_RETURN_IF_ERROR(fromJsonObject(doc, origin, record));
  return record;
}

} // namespace kb::workbench
