//===- workbench/abi/program_abi.h - The dispatch ABIs of a built program -===//
//
// `kernel-bench abi` and `new-kernel` read what a handwritten kernel must fit
// from the build itself: OUT_DIR/program.kbm, through the runtime's module
// loader (verified, parsed, nothing trusted). Each executable's ABI is its
// generated (reference) variants' exports — what the compiler made for the
// dispatch, whatever was substituted since — with the targets the program
// was compiled for.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_PROGRAM_ABI_H_
#define KB_WORKBENCH_ABI_PROGRAM_ABI_H_

#include "common/kernel_abi.h"
#include "common/status.h"
#include "common/target.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// One dispatch of an export by the program: what a kernel written for it
/// is launched with. A dispatch formed from a model has no constants, so
/// these are its only sizes.
struct DispatchSite {
  std::string function;
  uint32_t op = 0; // index in the function's ops
  uint32_t exportIndex = 0;
  std::array<uint32_t, 3> workgroupCount = {1, 1, 1};
  /// The dispatch's workload, when the module records it (a kernel with its
  /// own workload_per_workgroup derives its count from it).
  std::optional<std::array<uint64_t, 3>> workload;
  /// Elements of each binding's range, in the export's element type.
  std::vector<uint64_t> bindingElements;
};

/// The launch a handwritten kernel brings instead of the export's: its own
/// workgroup size and count rule (kernel.toml `workload_per_workgroup`, or
/// a standalone kernel's workgroup size; all 0 when only its constants are
/// its own), and its constants in a uniform block instead of push
/// constants, stored on its variant. The generated kernel keeps the
/// export's.
struct OwnLaunch {
  std::optional<Target> target;
  /// The device model a tuned variant runs on; empty: any device.
  std::string device;
  uint32_t exportIndex = 0;
  /// The candidate variant's export: its workgroup size and rule.
  KernelAbi abi;
};

struct ExecutableAbi {
  std::string name;
  /// The exports of its reference variants (of its candidate variants when
  /// it has no reference, e.g. a standalone kernel without one).
  std::vector<KernelAbi> exports;
  /// Targets of the variants the exports come from, sorted.
  std::vector<Target> targets;
  /// Targets a handwritten kernel is substituted for in this build.
  std::vector<Target> substitutedTargets;
  /// Where the program dispatches it, in function and op order.
  std::vector<DispatchSite> sites;
  /// The handwritten kernels that run with a launch of their own.
  std::vector<OwnLaunch> ownLaunches;
};

struct ProgramAbi {
  /// The module file as given or found (OUT_DIR/program.kbm).
  std::string modulePath;
  std::vector<ExecutableAbi> executables;
};

/// Loads |build|: a `kernel-bench build` output directory (its program.kbm)
/// or a .kbm file. NotFound / InvalidArgument (what it is not, what to pass)
/// when |build| is missing, not a build output, a build without a program,
/// or not a module this kernel-bench reads.
StatusOr<ProgramAbi> loadProgramAbi(const std::string &build);

/// The executable named |name|; InvalidArgument listing the executables
/// (and the nearest spelling) when there is none.
StatusOr<const ExecutableAbi *> findExecutable(const ProgramAbi &program,
                                               const std::string &name);

/// "`main` op 5: 32x16x1 workgroups; elements: x 131072, result 131072":
/// |site| of an export whose bindings are |abi|'s.
std::string describeSite(const KernelAbi &abi, const DispatchSite &site);

/// |exe|'s sites of export |exportIndex|.
std::vector<const DispatchSite *> exportSites(const ExecutableAbi &exe,
                                              uint32_t exportIndex);
/// The own launches of export |exportIndex| of |exe|.
std::vector<const OwnLaunch *> exportLaunches(const ExecutableAbi &exe,
                                              uint32_t exportIndex);

/// "cuda:sm_90, vulkan:1.2".
std::string joinTargets(const std::vector<Target> &targets);

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_PROGRAM_ABI_H_
