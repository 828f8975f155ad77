//===- workbench/build/build_record.h - build.json as a type --------------===//
//
// The build.json document as a struct, written and read by one field table
// per struct (build_record.cpp, workbench/support/json_fields.h): the
// build command fills a BuildRecord from its BuildReport (toBuildRecord in
// build_report.h) and writes it; `bench`, the bundle and `new-kernel` read
// it back with readBuildRecord and use its fields, not the JSON. The schema
// is documented in workbench/README.md.
//
// Keys no reader depends on may be absent when reading (a build.json of an
// older kernel-bench, or one written by hand for a GPU host); a key a reader
// needs (jobs[].kernel, jobs[].outputs[].sha256) is required, and a value of
// the wrong type is refused wherever it is.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_RECORD_H_
#define KB_WORKBENCH_BUILD_BUILD_RECORD_H_

#include "common/resource_usage.h"
#include "common/status.h"
#include "runtime/bench/declared.h"
#include "toolchains/diagnostics.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/remote_tier.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::workbench {

inline constexpr int kBuildReportSchemaVersion = 1;

/// Tool name -> version, in the order the jobs first named them.
using ToolVersionList = std::vector<std::pair<std::string, std::string>>;

struct BuildProjectRecord {
  std::string name;
  std::string directory;
  std::string manifest; // the project's workbench.toml
  std::vector<std::string> targets;
  std::optional<std::string> program; // the program's source, if any
};

/// The remote cache tier's URL and what it did.
struct RemoteCacheRecord {
  std::string url;
  toolchains::RemoteTierStats stats;
};

struct BuildCacheRecord {
  bool enabled = true;
  std::optional<std::string> directory; // none when disabled
  std::optional<RemoteCacheRecord> remote;
};

struct BuildOptionsRecord {
  unsigned jobs = 0;
  std::vector<std::string> targets; // as requested
  bool strict = false;
  BuildCacheRecord cache;
  double timeoutSeconds = 0;
  bool kernelsOnly = false;
};

struct BuildErrorRecord {
  std::string code; // statusCodeName
  std::string message;
};

struct BuildOutputRecord {
  std::string kind; // "ptx", "cubin", "spv"
  std::string path; // relative to the output directory when under it
  std::string sha256;
  uint64_t bytes = 0;
};

struct BuildJobRecord {
  std::string kernel;
  std::string target; // Target::toString()
  std::string language;
  std::string source;
  std::string manifest;
  std::string entry;
  std::optional<std::string> tunedFor; // the device model of a tuned spec
  std::string status;                  // "ok" | "failed"
  std::optional<BuildErrorRecord> error;
  std::string cache; // "hit" | "miss" | "disabled"
  double seconds = 0;
  std::optional<std::string> sharedCompileWith;
  std::vector<toolchains::ToolInvocation> commands;
  std::map<std::string, std::string> toolVersions;
  std::vector<BuildOutputRecord> outputs;
  std::optional<ResourceUsage> resources; // ptxas's; none for SPIR-V
  /// What the kernel declares; none when nothing. Its fixed arrays' |file|
  /// is set by the reader (the build directory joined with |stored|).
  std::optional<bench::KernelDeclared> declared;
  std::vector<toolchains::Diagnostic> diagnostics;
};

struct SkippedTargetRecord {
  std::string target;
  std::string reason;
};

/// A kernel.toml that did not load (project.h BrokenKernel).
struct BrokenKernelRecord {
  std::string manifest;
  std::string error;
};

/// A build's counts, for build.json "totals" and the totals line.
struct BuildTotals {
  size_t kernels = 0;
  size_t targets = 0;
  size_t jobs = 0;
  size_t succeeded = 0;
  size_t failed = 0;
  size_t cacheHits = 0;
  size_t remoteCacheHits = 0; // of cacheHits, read from the remote cache
  /// Sum of every tool invocation's duration (what a serial build costs).
  double toolSeconds = 0;
};

struct BuildTotalsRecord {
  BuildTotals counts;
  double wallSeconds = 0;
};

struct BuildRecord {
  int schemaVersion = kBuildReportSchemaVersion;
  std::string generator; // "kernel-bench VERSION"
  BuildProjectRecord project;
  std::string outputDir;
  BuildOptionsRecord options;
  /// Why the build stopped before running its jobs; none when they ran.
  std::optional<std::string> error;
  std::vector<SkippedTargetRecord> skippedTargets;
  std::vector<BrokenKernelRecord> brokenKernels;
  ToolVersionList toolVersions;
  std::vector<BuildJobRecord> jobs;
  /// The program step's record as program_record.h's toJson writes it; null
  /// without a program step. It has its own reader (parseProgramStamp).
  nlohmann::ordered_json program;
  BuildTotalsRecord totals;
};

/// The build.json document of |record|.
nlohmann::ordered_json toJson(const BuildRecord &record);

/// Reads |buildJson| (OUT/build.json): NotFound when it does not exist;
/// InvalidArgument naming the file, the key, what was expected and what was
/// found when it is not a build.json this version reads (not JSON, a newer
/// schema_version, a missing key or a value of the wrong type).
StatusOr<BuildRecord> readBuildRecord(const std::filesystem::path &buildJson);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_RECORD_H_
