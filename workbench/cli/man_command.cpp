//===- workbench/cli/man_command.cpp - `kernel-bench man` -----------------===//
//
// `kernel-bench man [-o FILE]`: the roff man page of this binary, from the
// same CLI definition it parses with (man_page.h). The build installs it as
// share/man/man1/kernel-bench.1; `kernel-bench man | man -l -` reads it
// without installing.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/cli_model.h"
#include "workbench/cli/command.h"
#include "workbench/cli/generated_output.h"
#include "workbench/cli/man_page.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace kb::workbench {

CommandRegistration addManCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "man", "Print the kernel-bench(1) man page (roff): kernel-bench man | "
             "man -l -");
  auto output = std::make_shared<std::string>();
  app->add_option("-o,--output", *output,
                  "Write the page to this file instead of standard output")
      ->type_name("FILE");
  const CLI::App *tree = &root;
  return {app, [output, tree]() {
            return emitGeneratedText(
                "man", manPage(describeCli(*tree), KB_VERSION_STRING), *output);
          }};
}

} // namespace kb::workbench
