//===- workbench/program_step_unavailable.cpp - No program compiler ------===//
//
// compileProgram() for a kernel-bench that has no program compiler linked in
// (KB_ENABLE_COMPILER=OFF, the binary GPU runners receive): kernels still
// build, and a project that names a program is told why it was not compiled.
// The compiler integration provides its own program_step implementation and
// workbench/CMakeLists.txt picks one of the two.
//
//===----------------------------------------------------------------------===//
#include "workbench/program_step.h"

namespace kb::workbench {

bool canCompilePrograms() { return false; }

std::string programCompilerUnavailableReason() {
#ifdef KB_COMPILER_CONFIGURED
  return "this kernel-bench has no program compiler linked in yet (the "
         "compiler/ integration of `build` is not part of this build)";
#else
  return "this kernel-bench was built without the compiler "
         "(KB_ENABLE_COMPILER=OFF); reconfigure with -DKB_ENABLE_COMPILER=ON "
         "to compile programs";
#endif
}

Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &,
                      const std::filesystem::path &, const ProgramStepOptions &,
                      nlohmann::ordered_json &record) {
  std::string reason = programCompilerUnavailableReason();
  record = {{"path", project.program ? project.program->string() : ""},
            {"status", "not_compiled"},
            {"reason", reason}};
  return failedPrecondition(reason);
}

// This kernel-bench never writes program modules; one left by a kernel-bench
// with the compiler in the same directory is not its to remove.
void discardProgramOutputs(const Project &, const std::filesystem::path &) {}

} // namespace kb::workbench
