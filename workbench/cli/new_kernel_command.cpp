//===- workbench/cli/new_kernel_command.cpp - `kernel-bench new-kernel` ---===//
//
//   kernel-bench new-kernel OUT_DIR EXECUTABLE [--lang cuda|glsl|both]
//                           [-o DIR]
//
// Starts a handwritten kernel for one executable of a built program: a new
// directory (default ./EXECUTABLE) with a kernel.toml that substitutes it
// and sources whose interface fits its ABI, bodies empty
// (kernel_scaffold.h). Exit codes: 0 written; 1 OUT_DIR is not a build with
// a program, no such executable, the executable cannot get one kernel, the
// directory exists or cannot be written (nothing is left half-written);
// 2 usage.
//
//===----------------------------------------------------------------------===//
#include "common/paths.h"
#include "workbench/build/build_record.h"
#include "workbench/cli/command.h"
#include "workbench/abi/kernel_scaffold.h"
#include "workbench/abi/program_abi.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace kb::workbench {

namespace {

namespace fs = std::filesystem;

struct NewKernelArgs {
  std::string build;
  std::string executable;
  std::string lang = "both";
  std::string output;
};

int fail(const Status &status) {
  std::fprintf(stderr, "kernel-bench new-kernel: error: %s\n",
               status.message().c_str());
  return kExitUserError;
}

/// The project's workbench.toml as build.json records it, for the next
/// steps; empty when OUT_DIR has no readable build.json (a .kbm file).
std::string projectManifest(const std::string &build) {
  StatusOr<BuildRecord> record =
      readBuildRecord(fs::path(build) / "build.json");
  if (!record.ok() || record->project.manifest.empty())
    return "";
  return displayPath(record->project.manifest);
}

void printNextSteps(const NewKernelArgs &args, const ExecutableAbi &exe,
                    const fs::path &dir) {
  if (!exe.substitutedTargets.empty())
    std::printf("note: this build already substitutes a handwritten kernel "
                "for `%s` (%s); a project substitutes each executable once "
                "per language: take `substitutes` out of the other "
                "kernel.toml, or build this one in another project\n",
                exe.name.c_str(), joinTargets(exe.substitutedTargets).c_str());
  std::string manifest = projectManifest(args.build);
  std::printf("next: write the body (the TODO); add %s to [project] kernels "
              "in %s unless a glob there covers it; then `kernel-bench "
              "build` checks it against this ABI, and `kernel-bench run` / "
              "`bench` compare it with the generated kernel\n",
              displayPath(dir).c_str(),
              manifest.empty() ? "your workbench.toml" : manifest.c_str());
}

int runNewKernel(const NewKernelArgs &args) {
  StatusOr<ProgramAbi> program = loadProgramAbi(args.build);
  if (!program.ok())
    return fail(program.status());
  StatusOr<const ExecutableAbi *> exe =
      findExecutable(*program, args.executable);
  if (!exe.ok())
    return fail(exe.status());
  ScaffoldRequest request;
  request.program = &*program;
  request.executable = *exe;
  request.cuda = args.lang != "glsl";
  request.glsl = args.lang != "cuda";
  // `both` means both of what the program was compiled for: a .cu for a
  // program without CUDA targets would never build.
  const std::vector<Target> &targets = (*exe)->targets;
  bool cuda = std::any_of(targets.begin(), targets.end(),
                          [](const Target &t) { return t.isCuda(); });
  bool vulkan = std::any_of(targets.begin(), targets.end(),
                            [](const Target &t) { return t.isVulkan(); });
  if (args.lang == "both" && (cuda || vulkan)) {
    request.cuda = cuda;
    request.glsl = vulkan;
  }
  request.directory =
      args.output.empty() ? fs::path(args.executable) : fs::path(args.output);
  StatusOr<std::vector<ScaffoldFile>> files = writeScaffold(request);
  if (!files.ok())
    return fail(files.status());
  std::string names;
  for (const ScaffoldFile &f : *files)
    names += (names.empty() ? "" : ", ") + f.name;
  std::printf("wrote %s for executable `%s` (%s): %s\n",
              displayPath(request.directory).c_str(), (*exe)->name.c_str(),
              joinTargets((*exe)->targets).c_str(), names.c_str());
  printNextSteps(args, **exe, request.directory);
  return kExitOk;
}

} // namespace

CommandRegistration addNewKernelCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "new-kernel", "Start a handwritten kernel for an executable of a built "
                    "program: a kernel.toml that substitutes it and a .cu "
                    "and/or .comp whose interface fits its ABI");
  auto args = std::make_shared<NewKernelArgs>();
  app->add_option("OUT_DIR", args->build,
                  "Output directory of `kernel-bench build` (its program.kbm), "
                  "or a .kbm file")
      ->type_name("PATH")
      ->required();
  app->add_option("EXECUTABLE", args->executable,
                  "The executable the kernel replaces (`kernel-bench abi "
                  "OUT_DIR` lists them)")
      ->type_name("NAME")
      ->required();
  app->add_option("--lang", args->lang,
                  "Sources to write: cuda (.cu), glsl (.comp) or both "
                  "(default: those of the program's targets)")
      ->check(CLI::IsMember({"cuda", "glsl", "both"}));
  app->add_option("-o,--output", args->output,
                  "The kernel directory to create; its name is the kernel's "
                  "(default: ./EXECUTABLE). Never overwritten")
      ->type_name("DIR");
  return {app, [args]() { return runNewKernel(*args); }};
}

} // namespace kb::workbench
