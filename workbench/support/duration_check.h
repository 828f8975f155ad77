//===- workbench/support/duration_check.h - Range checks for durations ----===//
//
// `--timeout inf` used to print the largest double as a 300-digit number and
// `--timeout nan` silently meant 120 s. Every duration a user gives (flags
// and workbench.toml) goes through one check: a finite number of seconds in
// (0, kMaxSeconds].
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_DURATION_CHECK_H_
#define KB_WORKBENCH_SUPPORT_DURATION_CHECK_H_

#include <string>

namespace kb::workbench {

/// One day: far above any tool's run, far below what a timer can hold.
inline constexpr double kMaxSeconds = 86400;

/// The allowed range, for messages: "a number of seconds greater than 0 and
/// at most 86400 (24 h)".
std::string secondsRangeText();

/// Empty when |seconds| is finite and in (0, kMaxSeconds], else what is
/// wrong with it (with the allowed range).
std::string checkSeconds(double seconds);

/// Same for text as given on the command line (a CLI11 check: it must parse
/// as a whole number or decimal).
std::string checkSecondsText(const std::string &text);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_DURATION_CHECK_H_
