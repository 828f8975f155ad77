//===- workbench/build/program_step.h - Compile the project's program -----===//
//
// The seam between `kernel-bench build` and the compiler: after every kernel
// job has run, a project that names a `program` has it compiled with the
// successfully built kernels substituted for the executables they name
// (`substitutes`). The compiler integration implements compileProgram();
// the build command only calls it and records what it returns.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_PROGRAM_STEP_H_
#define KB_WORKBENCH_BUILD_PROGRAM_STEP_H_

#include "common/status.h"
#include "common/target.h"
#include "toolchains/host_reference.h"
#include "toolchains/toolchains.h"
#include "workbench/build/build_report.h"
#include "workbench/support/output_manifest.h"
#include "workbench/build/program_record.h"
#include "workbench/project/project.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// True when this kernel-bench can compile programs (built with the
/// compiler and the compiler integration linked in).
bool canCompilePrograms();

/// Why programs cannot be compiled, and what to do; empty when they can.
std::string programCompilerUnavailableReason();

/// The stamp compileProgram() leaves in OUT_DIR after a successful compile:
/// the key of everything the step read, the sha256 of every file it wrote
/// and its build.json record. Written last; removed by any failure.
inline constexpr const char *kProgramStampName = ".kb-program-stamp";

/// What the build command decides for the program step.
struct ProgramStepOptions {
  /// The targets this build built: the program gets one variant each.
  std::vector<Target> targets;
  /// The ptxas the compiler runs for cubins (the toolchains layer's, so
  /// workbench.toml's [toolchains] applies); nullopt: no CUDA target.
  std::optional<toolchains::ToolIdentity> ptxas;
  /// sha256 (hex) of a file's contents, nullopt when unreadable: the build
  /// cache's stat-keyed memo (toolchains/file_hash_memo.h), so a no-op
  /// build only stats the files it checks.
  std::function<std::optional<std::string>(const std::string &)> hashFile;
  /// False (--no-cache): compile even when the stamp says nothing changed.
  bool reuse = true;
  /// The build's record of the files it may delete (output_manifest.h):
  /// the step removes earlier modules only through it, so a user's own
  /// `bench/*.kbm` or `standalone/` files in OUT_DIR are never touched, and
  /// records every file the compiler wrote. Required.
  OutputManifest *outputs = nullptr;
  /// Compiles a standalone kernel's C/C++ reference into the file given
  /// (toolchains/host_reference.h) with the build's tools, cache and
  /// limits. Unset: a kernel that has one fails.
  std::function<toolchains::HostReferenceResult(
      const toolchains::HostReferenceSpec &, const std::filesystem::path &)>
      buildHostReference;
};

/// Compiles |project|.program into |outputDir| with the kernels of
/// |succeeded| substituted. |record| receives what was compiled and what
/// the compiler returned (build.json "program").
///
/// Skips the compile when the stamp of the previous build has the same key
/// (program contents, substituted files' contents, targets, ptxas,
/// kernel-bench build id, ...) and every file it recorded is still in place
/// unchanged: |record| is then the previous record with `cached` set.
Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const std::filesystem::path &outputDir,
                      const ProgramStepOptions &options, ProgramRecord &record);

/// Removes every program output an earlier build provably wrote into
/// |outputDir|, whatever project it was (program.kbm, bench/, standalone/,
/// the stamp): called when this build has no program step (--kernels-only,
/// or a project without a program), so that `run`, `abi` and `bench` find no
/// program rather than a stale one.
void discardAnyProgramOutputs(const std::filesystem::path &outputDir,
                              OutputManifest &outputs);

/// Removes what compileProgram() provably wrote into |outputDir| by an
/// earlier build (program.kbm, bench/, the standalone kernels' directories,
/// the stamp): called when the step is skipped (the build was interrupted).
void discardProgramOutputs(const Project &project,
                           const std::filesystem::path &outputDir,
                           OutputManifest &outputs);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_PROGRAM_STEP_H_
