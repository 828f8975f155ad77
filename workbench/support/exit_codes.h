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

/// One row of the exit-status table as people read it: the man page's EXIT
/// STATUS is generated from these rows, so it cannot drift from the codes
/// (docs/cli.md has the long form, with the commands each code applies to).
struct ExitCodeDoc {
  const char *code; // "0", ..., "128+N".
  const char *meaning;
};

inline constexpr ExitCodeDoc kExitCodeDocs[] = {
    {"0", "success (for compare: no regression)"},
    {"1", "failure: a kernel or program failed to build, outputs disagree, a "
          "benchmark is INCORRECT, ERROR or SANITIZER, a regression was found, "
          "or the "
          "command's input was refused"},
    {"2", "usage error: unknown command or flag, bad flag value"},
    {"3", "inconclusive comparison (compare --fail-on inconclusive)"},
    {"4", "unreadable or incompatible input report (compare, report, merge, "
          "bench --shard-balance), or a refused BUILD/build.json (bench)"},
    {"5", "nothing measured: bench timed no benchmark, or compare could "
          "compare no row"},
    {"77", "no usable device, or a requested backend is unavailable (run, "
           "bench, devices, tune): skipped, not failed"},
    {"128+N", "interrupted by signal N (130 Ctrl-C, 143 SIGTERM, 129 "
              "SIGHUP); outputs written so far are complete and say so"},
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_EXIT_CODES_H_
