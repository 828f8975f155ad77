//===- workbench/main.cpp - The kernel-bench driver -----------------------===//
//
// The CLI edge: the only place exceptions are caught. Each subcommand
// registers itself (cli/command.h); this file parses, dispatches and maps
// failures to exit codes (support/exit_codes.h).
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"
#include "workbench/support/spelling.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace kb::workbench;

int main(int argc, char **argv) {
  // A reader that goes away (`kernel-bench build | head`) must not kill us
  // mid-write of build.json; writes then fail with EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
#ifdef __GLIBC__
  // The correctness checks of a benchmark with GiB-sized buffers allocate
  // and free host copies of them many times (inputs, poisoned outputs,
  // read-backs). glibc maps each large block afresh and unmaps it on free,
  // so every allocation page-faults in and zeroes all of its pages again:
  // measured on a 2 GiB copy, most of a two-minute check. Served from a heap
  // that is never trimmed, freed blocks are reused already mapped.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif

  CLI::App app{"kernel-bench: compile, validate, substitute and benchmark "
               "handwritten GPU kernels",
               "kernel-bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kernel-bench " KB_VERSION_STRING);

  std::vector<CommandRegistration> commands;
  commands.push_back(addBuildCommand(app));
  commands.push_back(addBenchCommand(app));
  commands.push_back(addBundleCommand(app));
  commands.push_back(addTuneCommand(app));
  commands.push_back(addDevicesCommand(app));
  commands.push_back(addRunCommand(app));
  commands.push_back(addReportCommand(app));
  commands.push_back(addCompareCommand(app));
  commands.push_back(addMergeCommand(app));
  commands.push_back(addAbiCommand(app));
  commands.push_back(addNewKernelCommand(app));
  commands.push_back(addImportCommand(app));
  commands.push_back(addWorkerCommand(app));

  // CLI11 reports a mistyped subcommand as "A subcommand is required".
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CommandRegistration &command : commands)
      names.push_back(command.app->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string list;
      for (const std::string &name : names)
        list += (list.empty() ? "" : ", ") + name;
      std::optional<std::string> nearest = nearestSpelling(argv[1], names);
      std::fprintf(stderr,
                   "kernel-bench: error: unknown command `%s`%s (commands: "
                   "%s; see kernel-bench --help)\n",
                   argv[1],
                   nearest ? ("; did you mean `" + *nearest + "`?").c_str()
                           : "",
                   list.c_str());
      return kExitUsage;
    }
  }

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
