//===- workbench/project/kernel_toml.h - The kernel.toml schema -----------===//
//
// Reads one kernel directory's kernel.toml (format: kernels/README.md) into
// a Kernel (project.h): [kernel] (sources, entry, defines, include dirs,
// per-tool flags, targets, what it substitutes), [abi] (the slot it fits)
// and [bench] (the dispatch a standalone kernel is benchmarked with).
//
// Every error is an InvalidArgument (NotFound for a missing file) whose
// message starts with `file:line:col:` and names the key, what was expected
// and what was found; an unknown key suggests the nearest valid one.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_H_

#include "workbench/project/project.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The language of a kernel source by its extension (.cu: CUDA; .comp,
/// .glsl: GLSL), as `sources` reads it; nullopt for anything else.
std::optional<toolchains::Language>
languageOf(const std::filesystem::path &source);

/// Loads one kernel.toml. |defaultTargets| are used when the kernel declares
/// none. |nameWhere|, when given, receives the location that defines the
/// kernel's name (for duplicate-name errors across a project).
/// |problem|, when given, picks the values of the `[bench] constants` given
/// as lists (the problem-size axes `tune` sweeps); without it, the first
/// value of each.
StatusOr<Kernel> loadKernel(const std::filesystem::path &manifest,
                            const std::vector<Target> &defaultTargets,
                            std::string *nameWhere = nullptr,
                            const ProblemSize *problem = nullptr);

/// The tool names `[kernel.flags]` accepts.
const std::vector<std::string> &knownToolNames();

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_H_
