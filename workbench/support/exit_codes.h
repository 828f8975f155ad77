//===- workbench/support/exit_codes.h - One exit-code table ---------------===//
//
// Every command's exit status comes from this table (docs/cli.md): the
// engines return Status and reports, the commands map them here, and a
// worker process exits with the same codes its parent relays.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_EXIT_CODES_H_
#define KB_WORKBENCH_SUPPORT_EXIT_CODES_H_

namespace kb::workbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitUserError = 1,
  kExitUsage = 2,
  kExitInconclusive = 3,
  kExitBadInput = 4,
  /// A gate with nothing behind it: no benchmark was timed, or no row of
  /// two reports could be compared. Never success.
  kExitNothingMeasured = 5,
  kExitUnavailable = 77,
  kExitInterruptedBase = 128, // + the signal number (130 for SIGINT)
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_EXIT_CODES_H_
