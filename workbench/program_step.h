//===- workbench/program_step.h - Compile the project's program ----------===//
//
// The seam between `kernel-bench build` and the compiler: after every kernel
// job has run, a project that names a `program` has it compiled with the
// successfully built kernels substituted for the executables they name
// (`substitutes`). The compiler integration implements compileProgram();
// the build command only calls it and records what it returns.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROGRAM_STEP_H_
#define KB_WORKBENCH_PROGRAM_STEP_H_

#include "common/status.h"
#include "workbench/build_report.h"
#include "workbench/project.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

namespace kb::workbench {

/// True when this kernel-bench can compile programs (built with the
/// compiler and the compiler integration linked in).
bool canCompilePrograms();

/// Why programs cannot be compiled, and what to do; empty when they can.
std::string programCompilerUnavailableReason();

/// Compiles |project|.program into |outputDir| with the kernels of
/// |succeeded| substituted. |record| receives the build.json "program"
/// object (what was compiled, which substitutions were applied).
Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const std::filesystem::path &outputDir,
                      nlohmann::ordered_json &record);

/// Removes what compileProgram() wrote into |outputDir| by an earlier build
/// (program.kbm, bench/, the standalone kernels' directories): called when
/// the step is skipped (a kernel job failed, or the build was interrupted).
void discardProgramOutputs(const Project &project,
                           const std::filesystem::path &outputDir);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROGRAM_STEP_H_
