//===- FatalErrorRecovery.cpp - LLVM fatal errors as failures -------------===//
#include "kb/Codegen/FatalErrorRecovery.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace {
/// The message slot of the innermost runRecoveringFatalErrors on this
/// thread; null outside one.
thread_local std::string *currentMessage = nullptr;

/// Installed once for the whole process. Inside a recovering call it jumps
/// back out of the work; elsewhere it prints what LLVM's default handler
/// prints and returns, and LLVM exits as it always did.
void onFatalError(void *, const char *reason, bool) {
  llvm::CrashRecoveryContext *context =
      llvm::CrashRecoveryContext::GetCurrent();
  if (currentMessage && context) {
    *currentMessage = reason;
    context->HandleExit(1);
  }
  llvm::errs() << "LLVM ERROR: " << reason << "\n";
}

void installOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Enable() is what makes GetCurrent() and the jump back work; it also
    // catches crash signals raised inside a recovering call (outside one,
    // a signal is re-raised with the previous handlers, as before).
    llvm::CrashRecoveryContext::Enable();
    llvm::install_fatal_error_handler(onFatalError, nullptr);
  });
}
} // namespace

LogicalResult
mlir::kb::runRecoveringFatalErrors(llvm::function_ref<void()> work,
                                   std::string &message) {
  installOnce();
  std::string caught;
  std::string *outer = currentMessage;
  currentMessage = &caught;
  llvm::CrashRecoveryContext context;
  bool completed = context.RunSafely(work);
  currentMessage = outer;
  if (completed)
    return success();
  message = caught.empty() ? "the compiler crashed (signal " +
                                 std::to_string(context.RetCode - 128) + ")"
                           : caught;
  return failure();
}

std::string mlir::kb::closeOutputStream(llvm::raw_fd_ostream &os,
                                        llvm::StringRef path) {
  os.close();
  if (!os.has_error())
    return "";
  std::string message =
      "cannot write '" + path.str() + "': " + os.error().message();
  os.clear_error();
  return message;
}
