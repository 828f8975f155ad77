//===- workbench/project/kernel_toml_launch.h - A kernel's launch shape ---===//
//
// The part of kernel.toml (kernel_toml.h) that says how a kernel is
// launched: `[abi] workgroup_size`, `workload_per_workgroup` (the workgroup
// count rule: ceildiv(workload, workload_per_workgroup)) and
// `dynamic_shared_memory`. Each number is an integer or an expression
// (declared_expression.h) of integer `defines`, tuned names and, for a
// standalone kernel, integer [bench] constants — `"TILE / WPT"`,
// `"4 * TILE * (TILE_K + PAD)"` — so a tuned tile size changes the launch
// with the source. Tuned values differ per source (tuned.toml has one entry
// per backend) and per configuration (`tune`), so the expressions are kept
// (DeclaredLaunch) and evaluated into each spec's ABI whenever its values
// change (resolveLaunch).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_LAUNCH_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_LAUNCH_H_

#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

namespace kb::workbench {

/// `[abi] workgroup_size` (required), `workload_per_workgroup` and
/// `dynamic_shared_memory` of |abiTable| into |kernel.launch|, checked for
/// form only. A `workload_per_workgroup` in |benchTable| (where it used to
/// be) is an error saying where it goes now.
Status readLaunch(const TomlFile &file, const toml::table &abiTable,
                  const toml::table *benchTable, Kernel &kernel);

/// Evaluates |kernel.launch| for every spec of |kernel| with that spec's
/// integer defines and tuned values into its ABI (workgroupSize,
/// workloadPerWorkgroup, dynamicSharedMemoryBytes). An error names the
/// file, line and column of the entry, the expression and what is wrong
/// (an unknown name with the known ones, a tuned name with no value, a
/// result that is not a positive integer, a workgroup past the limits).
Status resolveLaunch(Kernel &kernel);

/// Whether `workload_per_workgroup` has an entry for every dimension of
/// the [bench] workload (not 1): a missing one would be 1.
Status checkLaunchCoversWorkload(const Kernel &kernel);

/// resolveLaunch for one spec of |kernel| (or a copy of one).
Status resolveSpecLaunch(const Kernel &kernel, toolchains::KernelSpec &spec);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_LAUNCH_H_
