//===- workbench/project/project_testing.h - loadProject for tests --------===//
//
// The schema's tests check one kernel.toml's messages. loadProject keeps a
// kernel.toml that does not load as a BrokenKernel (the build goes on
// without it); these tests take it as loadProject's error, as it was before
// a broken kernel stopped failing the whole project.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_PROJECT_TESTING_H_
#define KB_WORKBENCH_PROJECT_PROJECT_TESTING_H_

#include "workbench/project/workbench_toml.h"

#include <filesystem>

namespace kb::workbench {

/// loadProject, with the first kernel.toml that did not load as its error.
inline StatusOr<Project> loadEveryKernel(const std::filesystem::path &dir) {
  StatusOr<Project> project = loadProject(dir);
  if (project.ok() && !project->brokenKernels.empty())
    return Status(project->brokenKernels.front().code,
                  project->brokenKernels.front().error);
  return project;
}

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_PROJECT_TESTING_H_
