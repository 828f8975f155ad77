//===- workbench/cli/completion_script.h - Shell completion -----*- C++ -*-===//
//
// Completion scripts for bash, zsh and fish, generated from the CLI model
// (cli_model.h): subcommands, each subcommand's flags, the values of flags
// with choices, and files or directories for paths. `kernel-bench
// completion SHELL` prints one; the build installs all three.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_CLI_COMPLETION_SCRIPT_H_
#define KB_WORKBENCH_CLI_COMPLETION_SCRIPT_H_

#include "workbench/cli/cli_model.h"

#include <string>

namespace kb::workbench {

std::string bashCompletionScript(const CliModel &model);
std::string zshCompletionScript(const CliModel &model);
std::string fishCompletionScript(const CliModel &model);

/// |help| cut to its first clause, for a shell's one-line description.
std::string shortHelp(const std::string &help);

/// |name| as a shell function name: anything but [A-Za-z0-9_] becomes '_'.
std::string shellIdentifier(const std::string &name);

/// |text| in single quotes for POSIX shells and zsh ('\'' for a quote).
std::string singleQuoted(const std::string &text);

} // namespace kb::workbench

#endif // KB_WORKBENCH_CLI_COMPLETION_SCRIPT_H_
