//===- kb/Serialization/KbmWriter.h - Write .kbm modules ------------------===//
//
// Turns a compiled program (after kb-codegen, object substitution and
// kb-generate-benchmarks) into .kbm modules (common/kbm/kbm.fbs):
//
//  * program.kbm: every executable with all its variants (generated ones as
//    Reference: PTX + cubin, SPIR-V; substituted objects as Candidate), and
//    every host function as a command list: one Alloc per kb.alloc (inputs
//    get a seeded init spec, buffers first written by a dispatch are zero),
//    one Dispatch per kb.dispatch with typed constants and the workgroup
//    count; outputs are the buffers a dispatch writes that no later dispatch
//    reads. The entry function is @main, else the first host function.
//    Functions with arguments are left out with a warning (nothing could
//    supply them).
//  * bench/<name>.kbm: one per entry of `kb.benchmarks`: the executable, a
//    function that allocates and initializes the benchmark's buffers and
//    runs its dispatch, and the Benchmark entry pointing at that dispatch.
//
// Errors are diagnostics at the op concerned; nothing is written on error.
//
//===----------------------------------------------------------------------===//
#ifndef KB_SERIALIZATION_KBMWRITER_H_
#define KB_SERIALIZATION_KBMWRITER_H_

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::kb {

struct KbmFile {
  /// Relative to the output directory: "program.kbm", "bench/<name>.kbm".
  std::string path;
  std::string bytes;
};

/// What one .kbm module may hold (common/kbm/kbm_limits.h); smaller in
/// tests.
struct KbmLimits {
  uint64_t maxBytes;
  uint64_t maxTables;
};
KbmLimits defaultKbmLimits();

/// Refuses, with a diagnostic naming the limit, a program whose
/// program.kbm would exceed |limits|: counted from what |module| holds at
/// any stage (after the front end has formed dispatches, before code
/// generation: variants not generated yet count once, with no code), so
/// the count is a lower bound that an early call makes cheaply and
/// buildProgramKbm repeats exactly before writing.
LogicalResult checkKbmLimits(ModuleOp module,
                             const KbmLimits &limits = defaultKbmLimits());

/// The program module. Fails (with diagnostics) when a host function does
/// something the command list cannot express or a generated variant has no
/// code (kb-codegen did not run).
LogicalResult buildProgramKbm(ModuleOp module, std::string &bytes);

/// One module per `kb.benchmarks` entry (none when the attribute is absent).
LogicalResult buildBenchmarkKbms(ModuleOp module,
                                 llvm::SmallVectorImpl<KbmFile> &files);

/// program.kbm (when |withProgram|) and bench/<name>.kbm.
LogicalResult buildKbmFiles(ModuleOp module, bool withProgram,
                            llvm::SmallVectorImpl<KbmFile> &files);

/// Writes |files| under |directory| (created when missing), each through a
/// temporary file and a rename; `.kbm` files left in |directory|/bench from
/// an earlier build and not rewritten are removed. On failure every file
/// written so far is removed and |error| says what failed.
LogicalResult writeKbmFiles(llvm::StringRef directory,
                            llvm::ArrayRef<KbmFile> files, std::string &error);

} // namespace mlir::kb

#endif // KB_SERIALIZATION_KBMWRITER_H_
