//===- workbench/support/duration_check.cpp - Range checks for durations --===//

#include "workbench/support/duration_check.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace kb::workbench {

std::string secondsRangeText() {
  return "a number of seconds greater than 0 and at most 86400 (24 h)";
}

std::string checkSeconds(double seconds) {
  if (std::isfinite(seconds) && seconds > 0 && seconds <= kMaxSeconds)
    return {};
  return "expected " + secondsRangeText();
}

std::string checkSecondsText(const std::string &text) {
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(begin, &end);
  // strtod also reads "inf", "nan" and hex floats: all refused below or here.
  if (text.empty() || end != begin + text.size() || errno == ERANGE)
    return "`" + text + "` is not a number; expected " + secondsRangeText();
  std::string problem = checkSeconds(value);
  return problem.empty() ? problem : "`" + text + "`: " + problem;
}

} // namespace kb::workbench
