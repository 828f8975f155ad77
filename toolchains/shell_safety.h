//===- toolchains/shell_safety.h - Refuse what nvcc's shell would run -----===//
//
// kernel-bench never uses a shell, but nvcc runs its sub-steps (gcc -E,
// cicc, ptxas) through `sh`: define values go inside double quotes, where
// `$`, backquote, backslash and `"` are still live, and -Xcompiler/-Xptxas
// values go bare. Paths never reach nvcc (the job stages them under names
// it chooses, see kernel_builder.cpp); what the user writes into defines
// and flags must, so those are checked here and refused with a message that
// says why. The same rules apply to every tool so a kernel.toml means the
// same thing for every target.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_SHELL_SAFETY_H_
#define KB_TOOLCHAINS_SHELL_SAFETY_H_

#include "common/status.h"

#include <string>
#include <string_view>

namespace kb::toolchains {

/// How a string reaches nvcc's shell.
enum class ShellExposure {
  /// Inside double quotes (define values): `$`, backquote, backslash, `"`
  /// and control characters are refused.
  DoubleQuoted,
  /// Bare (flags, tool paths): only letters, digits and `_-+=/.,:@%` pass.
  Bare,
};

/// Ok, or InvalidArgument naming |what| (e.g. "define `X` of kernel `k`"),
/// the offending character and why it is refused.
Status checkShellSafe(std::string_view what, std::string_view value,
                      ShellExposure exposure);

/// Ok when |name| is a C/GLSL identifier (a define name), else
/// InvalidArgument saying so.
Status checkMacroName(std::string_view what, std::string_view name);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_SHELL_SAFETY_H_
