//===- workbench/project/workbench_toml.h - The workbench.toml schema -----===//
//
// Loads a project directory: its workbench.toml ([project], [build],
// [toolchains]; format: kernels/README.md) and every kernel.toml it names
// (kernel_toml.h), into a Project (project.h).
//
// Every error is an InvalidArgument (NotFound for a missing file or
// directory) whose message starts with `file:line:col:` and names the key,
// what was expected and what was found.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_WORKBENCH_TOML_H_
#define KB_WORKBENCH_PROJECT_WORKBENCH_TOML_H_

#include "workbench/project/project.h"

#include <filesystem>

namespace kb::workbench {

/// Loads |directory|/workbench.toml and the kernels it names. Kernel names
/// are unique; the kernels come sorted by name.
/// The project in |directory|: workbench.toml and every kernel.toml it
/// names.
StatusOr<Project> loadProject(const std::filesystem::path &directory);

/// workbench.toml alone (no kernel loaded, |kernels| empty): its settings,
/// e.g. where the outputs go, for a caller that needs no more.
StatusOr<Project> loadProjectSettings(const std::filesystem::path &directory);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_WORKBENCH_TOML_H_
