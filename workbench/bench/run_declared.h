//===- workbench/bench/run_declared.h - Declarations for `run` ------------===//
//
// What `kernel-bench run` applies of what the kernel declares, as `bench`
// does (bench_worker.cpp): the build's record (declared_figures.h) of the
// kernel whose object the run's candidate variant is, found by that
// object's sha256 in the build.json of the build directory that holds the
// module, and its fixed inputs and expected outputs loaded
// (runtime/bench/fixed_data.h), and its host reference loaded
// (runtime/bench/host_reference.h).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_RUN_DECLARED_H_
#define KB_WORKBENCH_BENCH_RUN_DECLARED_H_

#include "common/status.h"
#include "runtime/bench/fixed_data.h"
#include "runtime/bench/host_reference.h"
#include "runtime/hal/device.h"
#include "runtime/module/module.h"

#include <filesystem>
#include <map>
#include <optional>

namespace kb::workbench {

struct RunDeclared {
  /// `[tolerance]` for every output, then by output buffer.
  module::ToleranceOverride tolerance;
  std::map<uint32_t, module::ToleranceOverride> outputTolerances;
  /// `[abi] shape` by output buffer: the grid a wrong output is shown on.
  std::map<uint32_t, std::vector<uint64_t>> outputShapes;
  bench::FixedData fixed;
  /// The kernel's C/C++ reference, loaded; null: none.
  std::shared_ptr<const bench::HostReference> hostReference;
};

/// The build.json beside the module at |modulePath| or up to three
/// directories above it (OUT/program.kbm, OUT/bench/, OUT/standalone/K/,
/// OUT/standalone/K/bench/); empty when there is none.
std::filesystem::path buildJsonAbove(const std::filesystem::path &modulePath);

/// What the kernel of |function|'s one dispatch declares, when its
/// executable has a candidate variant for |device| (a standalone kernel's
/// program, a benchmark module). nullopt when there is no build.json, the
/// function dispatches several kernels (a program: no one kernel's
/// declarations hold for all of its outputs), or the build has no record of
/// the object; an error for a build.json that cannot be read or a fixed
/// file that cannot be used.
StatusOr<std::optional<RunDeclared>>
declaredForRun(const std::filesystem::path &modulePath,
               const module::Module &module, const module::Function &function,
               const hal::DeviceProperties &device);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_RUN_DECLARED_H_
