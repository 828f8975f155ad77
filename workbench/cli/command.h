//===- workbench/cli/command.h - Subcommand registration ------------------===//
//
// Each `kernel-bench` subcommand lives in its own file and registers itself
// on the root CLI11 app. The returned action runs after parsing and returns
// the process exit code (exit_codes.h).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_CLI_COMMAND_H_
#define KB_WORKBENCH_CLI_COMMAND_H_

#include "workbench/support/exit_codes.h"

#include <functional>

namespace CLI {
class App;
} // namespace CLI

namespace kb::workbench {

struct CommandRegistration {
  CLI::App *app = nullptr;  // The subcommand (owned by the root app).
  std::function<int()> run; // Runs the command once parsed.
};

CommandRegistration addBenchCommand(CLI::App &root);
CommandRegistration addBuildCommand(CLI::App &root);
CommandRegistration addBundleCommand(CLI::App &root);
CommandRegistration addDevicesCommand(CLI::App &root);
CommandRegistration addRunCommand(CLI::App &root);
/// The hidden `__worker` subcommand (worker.h): device work for `bench`
/// and `run`, in a child process. Not listed in --help.
CommandRegistration addWorkerCommand(CLI::App &root);
/// Its parts, registered on the `__worker` app.
CommandRegistration addBenchWorkerCommand(CLI::App &worker);
CommandRegistration addRunWorkerCommand(CLI::App &worker);
/// `tune`: searches a kernel's [tune] space through `build` and `bench`.
CommandRegistration addTuneCommand(CLI::App &root);
CommandRegistration addReportCommand(CLI::App &root);
CommandRegistration addCompareCommand(CLI::App &root);
CommandRegistration addMergeCommand(CLI::App &root);
/// `abi` and `new-kernel`: what a kernel for a built program's executable
/// must fit, and the start of one.
CommandRegistration addAbiCommand(CLI::App &root);
CommandRegistration addNewKernelCommand(CLI::App &root);
/// `inspect`: a build's variants side by side, read from their code.
CommandRegistration addInspectCommand(CLI::App &root);
/// `import`: a kernel.toml from a kernel's compiled interface.
CommandRegistration addImportCommand(CLI::App &root);
/// `completion` and `man`: a shell's completion script and the man page,
/// generated from |root|'s definition when they run, so register them
/// before parsing like the rest (they read the whole tree).
CommandRegistration addCompletionCommand(CLI::App &root);
CommandRegistration addManCommand(CLI::App &root);

} // namespace kb::workbench

#endif // KB_WORKBENCH_CLI_COMMAND_H_
