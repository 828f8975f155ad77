//===- toolchains/shell_safety.cpp - Refuse what nvcc's shell would run ---===//

#include "toolchains/shell_safety.h"

#include <cstdio>
#include <cstring>

namespace kb::toolchains {
namespace {

bool isAsciiAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

bool refused(unsigned char c, ShellExposure exposure) {
  if (exposure == ShellExposure::Bare)
    return !isAsciiAlnum(c) && !std::strchr("_-+=/.,:@%", c);
  return c < 0x20 || c == 0x7f || std::strchr("$`\\\"", c);
}

std::string printable(unsigned char c) {
  switch (c) {
  case '\n':
    return "a newline";
  case '\t':
    return "a tab";
  case '\r':
    return "a carriage return";
  case ' ':
    return "a space";
  default:
    break;
  }
  if (c < 0x20 || c >= 0x7f) {
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", c);
    return buffer;
  }
  return std::string("`") + char(c) + "`";
}

} // namespace

Status checkShellSafe(std::string_view what, std::string_view value,
                      ShellExposure exposure) {
  for (unsigned char c : value) {
    if (refused(c, exposure)) {
      bool bare = exposure == ShellExposure::Bare;
      return invalidArgument(
          std::string(what) + " contains " + printable(c) +
          (bare ? ", which nvcc would pass unquoted to the shell it runs its "
                  "sub-steps through (only letters, digits and `_-+=/.,:@%` "
                  "are allowed there)"
                : ", which the shell nvcc runs its sub-steps through would "
                  "interpret even inside the double quotes nvcc adds") +
          ". kernel-bench refuses it so that no input can run a command; "
          "remove the character (put complex values in a header instead).");
    }
  }
  return okStatus();
}

Status checkMacroName(std::string_view what, std::string_view name) {
  bool ok = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (unsigned char c : name)
    ok = ok && (isAsciiAlnum(c) || c == '_');
  if (ok)
    return okStatus();
  return invalidArgument(std::string(what) + " `" + std::string(name) +
                         "` is not a macro name (letters, digits and `_`, not "
                         "starting with a digit); anything else could reach "
                         "the shell nvcc runs its sub-steps through.");
}

} // namespace kb::toolchains
