//===- toolchains/diagnostics.h - Structured tool diagnostics ------------===//
//
// Every toolchain message (nvcc front end, host gcc preprocessor, `nvcc
// fatal`, ptxas, glslc, spirv-val) is parsed into a Diagnostic, printed
// compiler-style (`file:line:col: error: message`) and recorded in build.json.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_DIAGNOSTICS_H_
#define KB_TOOLCHAINS_DIAGNOSTICS_H_

#include <string>
#include <string_view>
#include <vector>

namespace kb::toolchains {

enum class Severity { Note, Remark, Warning, Error, Fatal };
const char *toString(Severity severity); // "note", "warning", "error", ...

struct Diagnostic {
  /// "nvcc", "host-cxx", "ptxas", "glslc", "spirv-val", "spirv-opt",
  /// "kernel-bench".
  std::string tool;
  std::string file; // Empty when the tool names no file.
  int line = 0;     // 1-based; 0 when unknown.
  int column = 0;   // 1-based; 0 when unknown.
  Severity severity = Severity::Error;
  std::string message;
  std::string code; // Tool-specific number ("20044-D"), may be empty.
};

/// Parses the captured stderr of |tool| into diagnostics. Lines that are not
/// diagnostics (source echo, carets, "1 error generated.", `ptxas info`
/// resource reports) are dropped, except spirv-val's indented instruction
/// line, which is appended to its diagnostic's message. Messages from the
/// host compiler nvcc runs (`file:line:col: fatal error:`) get tool
/// "host-cxx"; `ptxas` lines get tool "ptxas" whoever printed them. File
/// names are returned as printed (often relative to the tool's directory).
std::vector<Diagnostic> parseDiagnostics(std::string_view tool,
                                         std::string_view text);

/// `file:line:col: severity: message [tool #code]`, or
/// `tool: severity: message` when there is no file; ANSI colour only when
/// |color| (the caller decides: TTY and no NO_COLOR).
std::string formatDiagnostic(const Diagnostic &diagnostic, bool color);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_DIAGNOSTICS_H_
