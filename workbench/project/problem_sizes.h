//===- workbench/project/problem_sizes.h - One benchmark per size ---------===//
//
// Sizes are compiled into the modules, so a kernel measured at several
// problem sizes is one copy of the kernel per size: the kernel.toml loaded
// again at that size (loadKernel's ProblemSize), which evaluates its
// constants, element counts, workload and declared figures there. `tune`
// does this for the `[bench] constants` given as lists and the sweep;
// `build` for `[bench] sweep`, each point a standalone benchmark of its own
// named after the point (`copy-n4096`).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_PROBLEM_SIZES_H_
#define KB_WORKBENCH_PROJECT_PROBLEM_SIZES_H_

#include "common/status.h"
#include "runtime/bench/declared.h"
#include "workbench/project/project.h"

#include <string>
#include <utility>
#include <vector>

namespace kb::workbench {

/// Problem-size axes: each constant's name with its values (decimal text).
using ProblemAxes =
    std::vector<std::pair<std::string, std::vector<std::string>>>;

/// Every combination of |axes|' values, the first axis outermost; one
/// empty size without axes.
std::vector<ProblemSize> problemSizes(const ProblemAxes &axes);

/// `M=64 N=128`: a size as tables and messages show it (name order).
std::string problemLabel(const ProblemSize &size);

/// The name of a swept kernel's copy at |point|: the kernel's name and
/// each swept constant with its value, `copy-n4096`, `mm-m64-k128`.
std::string sweepPointName(const bench::SweepPoint &point);

/// |project| with each kernel that has a `[bench] sweep` replaced by its
/// copies, one per point, loaded at that point (Kernel::declared.sweep
/// says which). InvalidArgument when a copy's name is another kernel's.
Status expandSweeps(Project &project);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_PROBLEM_SIZES_H_
