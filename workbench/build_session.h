//===- workbench/build_session.h - What a build sets up before its jobs ---===//
//
// The first phase of `kernel-bench build`: the project loaded, its jobs
// planned, the output directory created, the cache opened and the tools
// configured. Nothing has run yet; job_runner.h runs the plan and
// build_summary.h reports it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_SESSION_H_
#define KB_WORKBENCH_BUILD_SESSION_H_

#include "workbench/job_plan.h"
#include "workbench/output_lock.h"
#include "workbench/output_manifest.h"
#include "workbench/project.h"

#include "common/status.h"
#include "toolchains/build_cache.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/toolchains.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The command line of `kernel-bench build`.
struct BuildFlags {
  std::string projectDir = ".";
  std::string outputDir;
  unsigned jobs = 0;
  std::vector<std::string> targets;
  bool noCache = false;
  std::string cacheDir;
  /// The shared cache's URL (`--remote-cache`); empty: $KB_REMOTE_CACHE,
  /// else [build] remote_cache.
  std::string remoteCache;
  bool noRemoteCache = false;
  bool strict = false;
  bool verbose = false;
  double timeoutSeconds = 0;
  bool kernelsOnly = false;
  /// Fail at once when another build holds the output directory.
  bool noWait = false;
  /// Not a flag: `kernel-bench tune` replaces the project's kernels with one
  /// copy per configuration before the jobs are planned.
  std::function<Status(Project &)> adjustProject;
};

/// Everything the jobs and the program step of one build share. Not
/// movable: the plan points into |project|.
struct BuildSession {
  /// The `--target` flags, parsed and deduplicated; empty: all targets.
  std::vector<Target> requested;
  Project project;
  std::vector<PlannedJob> plan;
  /// One spec per plan entry: the project's own, or its `--strict` copy.
  std::vector<toolchains::KernelSpec> specs;
  /// The project names a program or has a standalone `[bench]` kernel, and
  /// `--kernels-only` was not given.
  bool compileProgramStep = false;
  /// Absolute; created; locked for the session's lifetime.
  std::filesystem::path outputDir;
  std::optional<OutputLock> outputLock;
  /// What earlier builds and this one wrote there: the only files a build
  /// may delete.
  std::unique_ptr<OutputManifest> outputs;
  unsigned jobs = 1;
  double timeoutSeconds = 120;
  /// Null with `--no-cache`. Holds the remote tier when one is configured.
  std::unique_ptr<toolchains::BuildCache> cache;
  /// Empty with `--no-cache`.
  std::filesystem::path cacheDir;
  std::unique_ptr<toolchains::Toolchains> tools;
  /// Targets dropped from |plan| for a missing toolchain.
  std::vector<SkippedTarget> skipped;

  BuildSession() = default;
  BuildSession(const BuildSession &) = delete;
  BuildSession &operator=(const BuildSession &) = delete;
};

/// The `--target` flags as targets, without duplicates; an unparsable one
/// is an error naming it (a usage error).
StatusOr<std::vector<Target>>
parseRequestedTargets(const std::vector<std::string> &texts);

/// Loads the project, plans its jobs for |requested|, creates the output
/// directory, opens the cache and configures the tools. Every error is a
/// message for the user (exit 1).
StatusOr<std::unique_ptr<BuildSession>>
openBuildSession(const BuildFlags &flags, std::vector<Target> requested);

/// `kernel-bench build` with |flags|: the whole command, progress and
/// summary on stdout; returns its exit code (docs/cli.md).
int runBuild(const BuildFlags &flags);

/// Every tool the planned jobs need is found (and version-probed) up front.
/// A target whose toolchain is missing is dropped from the plan and recorded
/// in |session.skipped| (the caller warns: a user with only a Vulkan GPU
/// still builds the Vulkan targets). It is an error instead, listing the
/// missing tools and the `--target` flags that would build the rest, under
/// |strict|, when the target was asked for with `--target`, or when no
/// target would be left.
Status skipUnavailableTargets(BuildSession &session, bool strict);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_SESSION_H_
