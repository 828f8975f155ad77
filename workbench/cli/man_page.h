//===- workbench/cli/man_page.h - kernel-bench.1 ----------------*- C++ -*-===//
//
// The roff man page, generated from the CLI model (cli_model.h) and the
// exit-code table (support/exit_codes.h): NAME, SYNOPSIS, DESCRIPTION, one
// subsection per command with its arguments and flags, EXIT STATUS.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_CLI_MAN_PAGE_H_
#define KB_WORKBENCH_CLI_MAN_PAGE_H_

#include "workbench/cli/cli_model.h"

#include <string>

namespace kb::workbench {

/// The page, in man(7) macros. |version| goes in the footer; there is no
/// date, so that the same binary always generates the same page.
std::string manPage(const CliModel &model, const std::string &version);

/// |text| as roff running text: backslashes escaped, and a line that would
/// start with '.' or '\'' (a request) escaped with \&.
std::string roffText(const std::string &text);

} // namespace kb::workbench

#endif // KB_WORKBENCH_CLI_MAN_PAGE_H_
