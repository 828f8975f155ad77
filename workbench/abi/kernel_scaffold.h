//===- workbench/abi/kernel_scaffold.h - A kernel directory for a ---------===//
//
// `kernel-bench new-kernel` writes the start of a handwritten kernel for one
// executable of a built program: a kernel.toml that substitutes it (its
// targets, workgroup size and [abi] as kernels/README.md says) and a .cu
// and/or .comp whose interface already fits the ABI (abi_source.h), with an
// empty body. The directory appears whole or not at all: the files are
// written into a temporary directory beside it, the kernel.toml is read back
// with the project's own reader and its ABI compared with the dispatch's,
// and only then is the directory renamed into place — never over an
// existing one.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_KERNEL_SCAFFOLD_H_
#define KB_WORKBENCH_ABI_KERNEL_SCAFFOLD_H_

#include "common/status.h"
#include "workbench/abi/program_abi.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kb::workbench {

struct ScaffoldRequest {
  const ProgramAbi *program = nullptr;
  const ExecutableAbi *executable = nullptr;
  bool cuda = true;
  bool glsl = true;
  /// The kernel directory to create; its name is the kernel's name.
  std::filesystem::path directory;
};

struct ScaffoldFile {
  std::string name; // within the directory
  std::string text;
};

/// The files, kernel.toml first. InvalidArgument when the executable cannot
/// get one kernel (several exports; an entry that is no C identifier for
/// CUDA; no target of the language), or the directory's name is not a valid
/// kernel name.
StatusOr<std::vector<ScaffoldFile>>
renderScaffold(const ScaffoldRequest &request);

/// Renders and creates |request.directory| atomically; the files written.
/// FailedPrecondition when anything is at that path already (nothing is
/// touched then), renderScaffold's errors, or an error writing (nothing is
/// left behind).
StatusOr<std::vector<ScaffoldFile>>
writeScaffold(const ScaffoldRequest &request);

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_KERNEL_SCAFFOLD_H_
