//===- workbench/main.cpp - The kernel-bench driver -----------------------===//
//
// The CLI edge: the only place exceptions are caught. Each subcommand
// registers itself (command.h); this file parses, dispatches and maps
// failures to exit codes.
//
//===----------------------------------------------------------------------===//
#include "workbench/command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <vector>

using namespace kb::workbench;

int main(int argc, char **argv) {
  CLI::App app{"kernel-bench: compile, validate, substitute and benchmark "
               "handwritten GPU kernels",
               "kernel-bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kernel-bench 0.1.0");

  std::vector<CommandRegistration> commands;
  commands.push_back(addBuildCommand(app));
  commands.push_back(addDevicesCommand(app));
  commands.push_back(addRunCommand(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    for (const CommandRegistration &command : commands)
      if (command.app->parsed())
        return command.run();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kernel-bench: error: %s\n", e.what());
    return kExitUserError;
  }
  return kExitUsage;
}
