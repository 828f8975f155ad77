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

namespace {

/// The command a user can name: hidden ones (`__worker`, started by
/// kernel-bench itself) are neither listed nor suggested.
std::vector<std::string>
visibleCommands(const std::vector<CommandRegistration> &commands) {
  std::vector<std::string> names;
  for (const CommandRegistration &command : commands)
    if (!command.app->get_group().empty())
      names.push_back(command.app->get_name());
  return names;
}

/// CLI11 reports a mistyped subcommand as "A subcommand is required": say
/// which name is unknown and the nearest one. Returns whether it did.
bool rejectedUnknownCommand(int argc, char **argv,
                            const std::vector<CommandRegistration> &commands) {
  if (argc < 2 || argv[1][0] == '-')
    return false;
  for (const CommandRegistration &command : commands)
    if (command.app->get_name() == argv[1])
      return false;
  const std::vector<std::string> names = visibleCommands(commands);
  std::string list;
  for (const std::string &name : names)
    list += (list.empty() ? "" : ", ") + name;
  std::optional<std::string> nearest = nearestSpelling(argv[1], names);
  std::fprintf(stderr,
               "kernel-bench: error: unknown command `%s`%s (commands: %s; "
               "see kernel-bench --help)\n",
               argv[1],
               nearest ? ("; did you mean `" + *nearest + "`?").c_str() : "",
               list.c_str());
  return true;
}

/// The subcommand being parsed when CLI11 stopped: the deepest one parsed.
const CLI::App *commandBeingParsed(const CLI::App &app) {
  for (const CLI::App *sub : app.get_subcommands())
    if (sub->parsed())
      return commandBeingParsed(*sub);
  return &app;
}

/// "unknown flag `--quik`; did you mean `--quick`?" for each argument
/// |command| did not expect, the nearest of its own flags suggested.
std::string unexpectedArguments(const CLI::App &command) {
  std::vector<std::string> flags;
  for (const CLI::Option *option : command.get_options()) {
    for (const std::string &name : option->get_lnames())
      flags.push_back("--" + name);
    for (const std::string &name : option->get_snames())
      flags.push_back("-" + name);
  }
  std::string message;
  for (const std::string &arg : command.remaining()) {
    std::string flag = arg.substr(0, arg.find('='));
    bool isFlag = flag.size() > 1 && flag[0] == '-';
    std::optional<std::string> nearest =
        isFlag ? nearestSpelling(flag, flags) : std::nullopt;
    message += std::string(message.empty() ? "" : "; ") +
               (isFlag ? "unknown flag `" + flag + "`"
                       : "unexpected argument `" + arg + "`") +
               (nearest ? " (did you mean `" + *nearest + "`?)" : "");
  }
  return message.empty() ? "unexpected arguments" : message;
}

/// A command line CLI11 refused, in the one error format:
/// `kernel-bench COMMAND: error: WHAT (see kernel-bench COMMAND --help)`.
int reportParseError(CLI::App &app, const CLI::ParseError &e) {
  // --help and --version end parsing with an "error" whose code is 0.
  if (e.get_exit_code() == 0)
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  const CLI::App *command = commandBeingParsed(app);
  const std::string name =
      command == &app ? "kernel-bench" : "kernel-bench " + command->get_name();
  const std::string what = dynamic_cast<const CLI::ExtrasError *>(&e)
                               ? unexpectedArguments(*command)
                               : std::string(e.what());
  std::fprintf(stderr, "%s: error: %s (see %s --help)\n", name.c_str(),
               what.c_str(), name.c_str());
  return kExitUsage;
}

} // namespace

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
  commands.push_back(addInspectCommand(app));
  commands.push_back(addReportCommand(app));
  commands.push_back(addCompareCommand(app));
  commands.push_back(addMergeCommand(app));
  commands.push_back(addAbiCommand(app));
  commands.push_back(addNewKernelCommand(app));
  commands.push_back(addImportCommand(app));
  commands.push_back(addCompletionCommand(app));
  commands.push_back(addManCommand(app));
  commands.push_back(addWorkerCommand(app));

  if (rejectedUnknownCommand(argc, argv, commands))
    return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return reportParseError(app, e);
  }

  for (const CommandRegistration &command : commands) {
    if (!command.app->parsed())
      continue;
    try {
      return command.run();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "kernel-bench %s: error: %s\n",
                   command.app->get_name().c_str(), e.what());
      return kExitUserError;
    }
  }
  return kExitUsage;
}
