//===- workbench/cli/generated_output.h - Print or write a text -*- C++ -*-===//
//
// `completion` and `man` print what they generate, or write it to -o FILE
// (what the build does: a redirection is not portable in a CMake custom
// command).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_CLI_GENERATED_OUTPUT_H_
#define KB_WORKBENCH_CLI_GENERATED_OUTPUT_H_

#include <string>

namespace kb::workbench {

/// Writes |text| to |output| (atomically), or to stdout when |output| is
/// empty. Returns the exit code; an error names |command| and the file.
int emitGeneratedText(const std::string &command, const std::string &text,
                      const std::string &output);

} // namespace kb::workbench

#endif // KB_WORKBENCH_CLI_GENERATED_OUTPUT_H_
