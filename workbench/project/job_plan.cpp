//===- workbench/project/job_plan.cpp - Which (kernel, target) jobs a -----===//
#include "workbench/project/job_plan.h"

#include "common/paths.h"

#include <algorithm>
#include <set>

namespace kb::workbench {

using toolchains::KernelSpec;

StatusOr<std::vector<PlannedJob>>
planJobs(const Project &project, const std::vector<Target> &requested) {
  std::vector<PlannedJob> jobs;
  std::set<Target> requestedUsed;
  for (const Kernel &kernel : project.kernels) {
    std::vector<Target> targets;
    if (requested.empty()) {
      targets = kernel.targets;
    } else if (kernel.declaresTargets) {
      for (const Target &t : kernel.targets)
        if (std::find(requested.begin(), requested.end(), t) != requested.end())
          targets.push_back(t);
    } else {
      targets = requested;
    }
    if (requested.empty() && targets.empty())
      return invalidArgument(
          displayPath(kernel.manifest) + ": kernel `" + kernel.name +
          "` has no targets: set `targets` in [project] of " +
          displayPath(project.manifest) + " or in [kernel], or pass --target");
    size_t before = jobs.size();
    for (const Target &target : targets) {
      const KernelSpec *spec = kernel.specFor(target);
      if (!spec)
        continue;
      jobs.push_back({&kernel, spec, target});
      requestedUsed.insert(target);
      // A handwritten twin reference builds beside it, for the same target.
      for (const KernelSpec &reference : kernel.referenceSpecs)
        if (reference.language == spec->language)
          jobs.push_back({&kernel, &reference, target});
      // Beside it, the source's values tuned for each device model.
      for (const KernelSpec &tuned : kernel.tunedSpecs)
        if (tuned.language == spec->language)
          jobs.push_back({&kernel, &tuned, target});
    }
    if (requested.empty() && jobs.size() == before)
      return invalidArgument(
          displayPath(kernel.manifest) + ": kernel `" + kernel.name +
          "` has no source for any of its targets; a .cu source builds "
          "cuda:* targets and a .glsl/.comp source builds vulkan:* targets");
  }
  for (const Target &target : requested)
    if (!requestedUsed.count(target))
      return invalidArgument(
          "--target " + target.toString() +
          ": no kernel of the project builds for it (a kernel needs a " +
          (target.isCuda() ? "CUDA .cu" : "GLSL") +
          " source, and a kernel that lists its own `targets` must list it)");
  return jobs;
}

} // namespace kb::workbench
