//===- kb/Codegen/FatalErrorRecovery.h - LLVM fatal errors as failures ----===//
//
// LLVM reports some errors with report_fatal_error (the NVPTX backend's
// "Cannot select ...", an undefined libcall symbol) and exits the process
// once the fatal-error handler returns. The compiler runs inside
// kernel-bench, so no input may do that: work that can reach such an error
// runs through runRecoveringFatalErrors, which turns it into a failure with
// LLVM's message (llvm::CrashRecoveryContext: the handler jumps back out of
// the failed work; what that work allocated is leaked, the process goes on).
//
//===----------------------------------------------------------------------===//
#ifndef KB_CODEGEN_FATALERRORRECOVERY_H_
#define KB_CODEGEN_FATALERRORRECOVERY_H_

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class raw_fd_ostream;
} // namespace llvm

namespace mlir::kb {

/// Runs |work| on this thread. Returns failure with |message| set to LLVM's
/// reason when it stopped with an LLVM fatal error (or a crash signal: then
/// |message| names the signal). Nestable; the innermost call recovers.
LogicalResult runRecoveringFatalErrors(llvm::function_ref<void()> work,
                                       std::string &message);

/// Closes |os| and returns its write error as "cannot write 'PATH': WHY"
/// ("" when every byte reached the file). A raw_fd_ostream keeps a failed
/// write (a full disk) to itself and calls report_fatal_error from its
/// destructor unless the error was cleared: every file stream the compiler
/// writes ends here, so a full disk is a diagnostic naming the file.
std::string closeOutputStream(llvm::raw_fd_ostream &os, llvm::StringRef path);

} // namespace mlir::kb

#endif // KB_CODEGEN_FATALERRORRECOVERY_H_
