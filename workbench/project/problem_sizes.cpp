//===- workbench/project/problem_sizes.cpp - One benchmark per size -------===//
#include "workbench/project/problem_sizes.h"

#include "common/paths.h"
#include "workbench/project/kernel_toml.h"

#include <algorithm>
#include <set>

namespace kb::workbench {

std::vector<ProblemSize> problemSizes(const ProblemAxes &axes) {
  std::vector<ProblemSize> sizes = {ProblemSize()};
  for (const auto &[name, values] : axes) {
    std::vector<ProblemSize> next;
    for (const ProblemSize &size : sizes)
      for (const std::string &value : values) {
        ProblemSize s = size;
        s[name] = value;
        next.push_back(std::move(s));
      }
    sizes = std::move(next);
  }
  return sizes;
}

std::string problemLabel(const ProblemSize &size) {
  std::string label;
  for (const auto &[name, value] : size)
    label += (label.empty() ? "" : " ") + name + "=" + value;
  return label;
}

std::string sweepPointName(const bench::SweepPoint &point) {
  std::string name = point.kernel;
  for (const auto &[constant, value] : point.values)
    name += "-" + constant + std::to_string(value);
  return name;
}

namespace {

/// |kernel|'s copies, one per point of its sweep.
StatusOr<std::vector<Kernel>> sweepCopies(const Kernel &kernel,
                                          const std::vector<Target> &targets) {
  std::vector<Kernel> copies;
  for (const ProblemSize &size : problemSizes(kernel.bench->sweep)) {
    KB_ASSIGN_OR_RETURN(Kernel copy,
                        loadKernel(kernel.manifest, targets, nullptr, &size));
    copies.push_back(std::move(copy));
  }
  return copies;
}

} // namespace

Status expandSweeps(Project &project) {
  std::vector<Kernel> kernels;
  std::set<std::string> names;
  for (Kernel &kernel : project.kernels) {
    // A copy already at its point (Kernel::declared.sweep) stays one.
    if (!kernel.bench || kernel.bench->sweep.empty() ||
        !kernel.declared.sweep.empty()) {
      if (kernel.declared.sweep.empty())
        names.insert(kernel.name);
      kernels.push_back(std::move(kernel));
      continue;
    }
    KB_ASSIGN_OR_RETURN(std::vector<Kernel> copies,
                        sweepCopies(kernel, project.targets));
    for (Kernel &copy : copies)
      kernels.push_back(std::move(copy));
  }
  for (const Kernel &kernel : kernels)
    if (!kernel.declared.sweep.empty() && names.count(kernel.name))
      return invalidArgument(
          displayPath(kernel.manifest) + ": [bench] sweep: the point `" +
          kernel.name + "` of kernel `" + kernel.declared.sweep.kernel +
          "` has the name of another kernel of the project; rename one");
  std::sort(kernels.begin(), kernels.end(),
            [](const Kernel &a, const Kernel &b) { return a.name < b.name; });
  project.kernels = std::move(kernels);
  return okStatus();
}

} // namespace kb::workbench
