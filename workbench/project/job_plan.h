//===- workbench/project/job_plan.h - Which (kernel, target) jobs a build -===//
#ifndef KB_WORKBENCH_PROJECT_JOB_PLAN_H_
#define KB_WORKBENCH_PROJECT_JOB_PLAN_H_

#include "workbench/project/project.h"

#include <string>
#include <vector>

namespace kb::workbench {

/// One unit of `kernel-bench build`: one kernel source for one target, or
/// a copy of it tuned for a device model (Kernel::tunedSpecs). Points into
/// the Project it was planned from.
struct PlannedJob {
  const Kernel *kernel = nullptr;
  const toolchains::KernelSpec *spec = nullptr;
  Target target;
};

/// A target of the project that this build does not build because a tool it
/// needs is missing on this machine; |reason| says which and what to
/// install.
struct SkippedTarget {
  Target target;
  std::string reason;
};

/// Plans the jobs of a build. Without |requested| every kernel builds for
/// its targets. With |requested| (the `--target` flags), a kernel that
/// declares targets builds those of them that are requested, and the other
/// kernels build every requested target; a requested target no kernel can
/// build, or a kernel left with no target at all, is an error.
StatusOr<std::vector<PlannedJob>>
planJobs(const Project &project, const std::vector<Target> &requested);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_JOB_PLAN_H_
