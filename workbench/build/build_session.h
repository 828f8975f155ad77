//===- workbench/build/build_session.h - What a build sets up before its --===//
//
// The first phase of `kernel-bench build`: the project loaded, its jobs
// planned, the output directory created, the cache opened and the tools
// configured. Nothing has run yet; job_runner.h runs the plan and
// build_summary.h reports it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_SESSION_H_
#define KB_WORKBENCH_BUILD_BUILD_SESSION_H_

#include "workbench/build/build_request.h"
#include "workbench/project/job_plan.h"
#include "workbench/support/output_lock.h"
#include "workbench/support/output_manifest.h"
#include "workbench/project/project.h"

#include "common/status.h"
#include "toolchains/build_cache.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/toolchains.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// Everything the jobs and the program step of one build share. The plan
/// and the job records point into |project|, which the build's report keeps
/// alive.
struct BuildSession {
  /// The `--target` flags, parsed and deduplicated; empty: all targets.
  std::vector<Target> requested;
  std::shared_ptr<Project> project;
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
  /// Each tool's address-space limit in bytes; 0: none.
  uint64_t toolMemoryBytes = 0;
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

/// Where a build of |project| for |request| writes: `-o`, else the
/// project's output_dir.
std::filesystem::path outputDirFor(const BuildRequest &request,
                                   const Project &project);

/// The limits every tool of |session| runs under (time, memory): the
/// kernel jobs' and the host references'.
toolchains::BuildOptions toolOptions(const BuildSession &session);

/// Loads the project (or takes the request's), plans its jobs, creates the
/// output directory, opens the cache and configures the tools; notes and
/// warnings go to |observer|. Every error is a message for the user.
StatusOr<std::unique_ptr<BuildSession>>
openBuildSession(const BuildRequest &request, BuildObserver &observer);

/// Every tool the planned jobs need is found (and version-probed) up front.
/// A target whose toolchain is missing is dropped from the plan and recorded
/// in |session.skipped| (the caller warns: a user with only a Vulkan GPU
/// still builds the Vulkan targets). It is an error instead, listing the
/// missing tools and the `--target` flags that would build the rest, under
/// |strict|, when the target was asked for with `--target`, or when no
/// target would be left.
Status skipUnavailableTargets(BuildSession &session, bool strict);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_SESSION_H_
