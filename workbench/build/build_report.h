//===- workbench/build/build_report.h - build.json ------------------------===//
//
// `OUT_DIR/build.json` records what a `kernel-bench build` did, failures
// included: that is its point (a CI log that says which kernel failed on
// which target with which diagnostics, and which outputs it published).
// The schema is documented in workbench/README.md and versioned by
// `schema_version`; bump it on any incompatible change.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_REPORT_H_
#define KB_WORKBENCH_BUILD_BUILD_REPORT_H_

#include "common/status.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/remote_tier.h"
#include "workbench/build/build_record.h"
#include "workbench/build/program_record.h"
#include "workbench/project/job_plan.h"
#include "workbench/project/project.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The options a build ran with, as recorded in build.json.
struct BuildReportOptions {
  unsigned jobs = 0;
  std::vector<Target> requestedTargets;
  bool strict = false;
  bool cacheEnabled = true;
  std::filesystem::path cacheDir;
  /// The remote tier's URL and what it did; unset without one.
  std::string remoteCacheUrl;
  std::optional<toolchains::RemoteTierStats> remoteCache;
  double timeoutSeconds = 0;
  bool kernelsOnly = false;
};

/// One finished job: what was planned and what the builder returned.
struct JobRecord {
  const Kernel *kernel = nullptr;
  const toolchains::KernelSpec *spec = nullptr;
  toolchains::BuildJobResult result;
};

struct BuildReport {
  /// The project built; the job records point into it.
  std::shared_ptr<const Project> project;
  std::filesystem::path outputDir;
  BuildReportOptions options;
  std::vector<JobRecord> jobs;
  /// Targets not built for a missing toolchain (build.json
  /// "skipped_targets").
  std::vector<SkippedTarget> skippedTargets;
  /// The program step's record; nullopt (build.json null) when the build
  /// has no program step.
  std::optional<ProgramRecord> program;
  /// Why the build stopped before running its jobs (e.g. a missing
  /// toolchain); empty when the jobs ran.
  std::string error;
  double wallSeconds = 0;

  // How the build ended, beyond what build.json records.
  /// The signal that interrupted it; 0 when none did.
  int interruptedBy = 0;
  /// The program step failed: why (the compiler's diagnostics are in
  /// |program|).
  std::string programError;
  /// build.json could not be written: why. Nothing else then says what the
  /// build did.
  std::string recordError;
  /// Where build.json was written.
  std::filesystem::path buildJson;
  /// Nothing changed: build.json was not rewritten, and still holds the
  /// record of the last build that changed something (its timings).
  bool upToDate = false;
};

/// The totals line and build.json "totals" (BuildTotals, build_record.h)
/// are computed from the same data.
BuildTotals computeTotals(const BuildReport &report);

/// The build.json record of |report|, and its document.
BuildRecord toBuildRecord(const BuildReport &report);
nlohmann::ordered_json toJson(const BuildReport &report);

/// sha256 of |record| (toJson of a report) without what differs between
/// two runs of the same build (the wall time, each job's own time, -j):
/// equal fingerprints mean the record would say the same, so a no-op build
/// keeps the old one.
std::string recordFingerprint(nlohmann::ordered_json record);

/// build.json's "program" object.
nlohmann::ordered_json toJson(const ProgramRecord &record);

/// The program step's no-op stamp (OUT_DIR/.kb-program-stamp) as a file,
/// and read back: nullopt for anything but a stamp of this format.
std::string renderProgramStamp(const ProgramStamp &stamp);
std::optional<ProgramStamp> parseProgramStamp(const std::string &text);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_REPORT_H_
