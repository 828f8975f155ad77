//===- workbench/cli/abi_command.cpp - `kernel-bench abi` -----------------===//
//
//   kernel-bench abi OUT_DIR [EXECUTABLE] [--json]
//
// Prints the ABI a handwritten kernel must meet to replace an executable of
// a built program (program_abi.h, abi_report.h): without EXECUTABLE one line
// per executable. Exit codes: 0 printed; 1 OUT_DIR is not a build with a
// program, or no such executable; 2 usage.
//
//===----------------------------------------------------------------------===//
#include "workbench/abi/abi_report.h"
#include "workbench/cli/command.h"
#include "workbench/abi/program_abi.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

struct AbiArgs {
  std::string build;
  std::string executable;
  bool json = false;
};

int fail(const Status &status) {
  std::fprintf(stderr, "kernel-bench abi: error: %s\n",
               status.message().c_str());
  return kExitUserError;
}

int runAbi(const AbiArgs &args) {
  StatusOr<ProgramAbi> program = loadProgramAbi(args.build);
  if (!program.ok())
    return fail(program.status());
  std::string text;
  if (args.executable.empty()) {
    text = args.json ? programAbiJson(*program).dump(2) + "\n"
                     : renderExecutableList(*program);
  } else {
    StatusOr<const ExecutableAbi *> exe =
        findExecutable(*program, args.executable);
    if (!exe.ok())
      return fail(exe.status());
    text = args.json ? executableAbiJson(*program, **exe).dump(2) + "\n"
                     : renderExecutableAbi(*program, **exe);
  }
  std::fputs(text.c_str(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitUserError;
}

} // namespace

CommandRegistration addAbiCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "abi", "Print the ABI a handwritten kernel must meet to replace an "
             "executable of a built program (bindings, constants, "
             "workgroup size, CUDA and GLSL declarations)");
  auto args = std::make_shared<AbiArgs>();
  app->add_option("OUT_DIR", args->build,
                  "Output directory of `kernel-bench build` (its program.kbm), "
                  "or a .kbm file")
      ->type_name("PATH")
      ->required();
  app->add_option("EXECUTABLE", args->executable,
                  "The executable to describe; without it, every executable "
                  "in one line each")
      ->type_name("NAME");
  app->add_flag("--json", args->json,
                "Print JSON (schema in docs/cli.md) instead of text");
  return {app, [args]() { return runAbi(*args); }};
}

} // namespace kb::workbench
